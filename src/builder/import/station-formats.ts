/**
 * The station archives `climate-query import` reads, by the name the command takes: each one's
 * reader, what it needs beside its files, and the source's name, licence and citation, which the
 * catalog's attribution carries into the app. A new format is one module and one entry here.
 */
import { readInputBytes, readInputText } from './input-bytes.ts';
import { basename } from 'node:path';
import { BuildError } from '../build-error.ts';
import { parseGhcndStations, readGhcndFile } from './ghcnd.ts';
import { readGhcnhFile } from './ghcnh.ts';
import { readGsodFile, readGsodOpFile } from './gsod.ts';
import { parseIsdHistory, readIsdLiteFile } from './isd-lite.ts';
import { Imported } from './imported.ts';
import { readMappedCsv } from './mapped-csv.ts';
import { parseMapping } from './mapping.ts';
import { meteostatStationOfFile, parseMeteostatStations, readMeteostatFile } from './meteostat.ts';

export interface StationFormat {
  /** What the source is, in a sentence. */
  title: string;
  /** The catalog's attribution line: source, licence, citation. */
  attribution: string;
  /** Whether its days are UTC days rather than the station's local days. */
  utcDays: boolean;
  /** The source's station list it needs for positions and names (`--stations`), by its usual name; null when its files carry them. */
  stationList: string | null;
  /** The station a file holds by the source's naming, or null when its name does not say (files are read a station at a time). */
  stationOfFile?(path: string): string | null;
  /** Whether its files are read by a mapping file (`--mapping`): exports with their own columns. */
  mapped?: boolean;
  read(
    files: readonly string[],
    options: { stationList?: string; mapping?: string; report?: ImportExtras },
  ): Promise<Imported>;
}

export const STATION_FORMATS: Readonly<Record<string, StationFormat>> = {
  ghcnd: {
    title: 'GHCN-Daily .dly files (NOAA NCEI), with the archive’s ghcnd-stations.txt',
    attribution:
      'GHCN-Daily: Menne, M.J., et al. (2012), Global Historical Climatology Network - Daily, NOAA National Centers for Environmental Information; no restrictions on use',
    utcDays: false,
    stationList: 'ghcnd-stations.txt',
    stationOfFile: (path) => /^(\w{11})\.(dly|csv|csv\.gz)$/i.exec(basename(path))?.[1] ?? null,
    async read(files, { stationList }) {
      const stations = parseGhcndStations(await readInputText(stationList!, 'latin1'), stationList!);
      const out = new Imported();
      for (const f of files) await readGhcndFile(f, stations, out);
      return out;
    },
  },
  ghcnh: {
    title: 'GHCNh hourly files (NOAA NCEI, the successor of ISD), GHCNh_<id>_<year>.psv or .parquet',
    attribution:
      'GHCNh: Global Historical Climatology Network hourly, NOAA National Centers for Environmental Information; public domain',
    utcDays: false,
    stationList: null,
    stationOfFile: (path) => /^GHCNh_(\w+?)_(\d{4}|por)\.(psv(\.gz)?|parquet)$/i.exec(basename(path))?.[1] ?? null,
    async read(files) {
      const out = new Imported();
      for (const f of files) await readGhcnhFile(f, out);
      return out;
    },
  },
  gsod: {
    title: 'Global Surface Summary of the Day (NOAA NCEI): CSV files, or the older .op (with isd-history.csv)',
    attribution:
      'GSOD: Global Surface Summary of the Day, NOAA National Centers for Environmental Information; public domain; its days are UTC days',
    utcDays: true,
    stationList: null,
    stationOfFile(path) {
      const name = basename(path);
      const op = /^(\w{6})-(\w{5})-\d{4}\.op(\.gz)?$/i.exec(name);
      return op ? `${op[1]}${op[2]}` : (/^(\w{11})\.csv$/i.exec(name)?.[1] ?? null);
    },
    async read(files, { stationList }) {
      const out = new Imported();
      // The older fixed-width files carry no positions: NOAA's station list, keyed USAF + WBAN as the CSV names stations.
      const op = files.filter((f) => /\.op(\.gz)?$/i.test(f));
      if (op.length > 0 && !stationList) {
        throw new BuildError(
          'invalid_option',
          `${op[0]} is a GSOD .op file, which holds no station positions: pass NOAA's isd-history.csv with --stations.`,
          { option: 'stations' },
        );
      }
      const stations =
        op.length > 0
          ? new Map(
              [...parseIsdHistory(await readInputText(stationList!, 'latin1'), stationList!)].map(([id, s]) => [
                id.replace('-', ''),
                s,
              ]),
            )
          : new Map();
      for (const f of files) await (op.includes(f) ? readGsodOpFile(f, stations, out) : readGsodFile(f, out));
      return out;
    },
  },
  'isd-lite': {
    title: 'ISD-Lite hourly files (NOAA NCEI), USAF-WBAN-YYYY(.gz), with the archive’s isd-history.csv',
    attribution:
      'ISD-Lite: Integrated Surface Database, NOAA National Centers for Environmental Information; public domain',
    utcDays: false,
    stationList: 'isd-history.csv',
    stationOfFile: (path) => {
      const m = /^(\w{6})-(\w{5})-\d{4}(\.gz)?$/.exec(basename(path));
      return m ? `${m[1]}-${m[2]}` : null;
    },
    async read(files, { stationList }) {
      const stations = parseIsdHistory(await readInputText(stationList!, 'latin1'), stationList!);
      const out = new Imported();
      for (const f of files) await readIsdLiteFile(f, stations, out);
      return out;
    },
  },
  meteostat: {
    title: 'Meteostat bulk CSV files (hourly or daily, <station>.csv.gz), with Meteostat’s stations/lite.json.gz',
    attribution:
      'Meteostat: meteostat.net bulk data, from national weather services, NOAA and others; licence CC BY-NC 4.0 (non-commercial use only); gap-filling model values not imported from files that state the source of each value; its daily values are its own aggregates, their days as Meteostat defines them',
    utcDays: false,
    stationList: 'lite.json.gz',
    stationOfFile: meteostatStationOfFile,
    async read(files, { stationList }) {
      const stations = parseMeteostatStations(await readInputBytes(stationList!), stationList!);
      const out = new Imported();
      for (const f of files) await readMeteostatFile(f, stations, out);
      return out;
    },
  },
  csv: {
    title:
      'a logger’s or a network’s export (CSV, or an Excel .xlsx workbook), read by a mapping file (--mapping; without one, a mapping is proposed)',
    attribution: '',
    utcDays: false,
    stationList: null,
    mapped: true,
    async read(files, { mapping, report }) {
      const m = parseMapping(await readInputText(mapping!, 'utf8'), mapping!);
      const out = new Imported();
      const readings = new Map<string, Map<number, number>>();
      await readMappedCsv(files, m, out, readings);
      if (report) report.readingsPerHour = readings;
      return out;
    },
  },
};

/** What a format's reader reports beyond the counts: readings per hour of a mapped export (station → readings → hours). */
export interface ImportExtras {
  readingsPerHour?: Map<string, Map<number, number>>;
}

/** The format named `name`, or a BuildError naming the ones there are. */
export function stationFormat(name: string): StationFormat {
  const f = Object.hasOwn(STATION_FORMATS, name) ? STATION_FORMATS[name] : undefined;
  if (!f) {
    throw new BuildError(
      'invalid_option',
      `"${name}" is not a station format this version imports; it imports ${Object.keys(STATION_FORMATS).join(', ')}.`,
      { option: 'format' },
    );
  }
  return f;
}
