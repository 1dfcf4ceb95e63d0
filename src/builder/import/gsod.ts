/**
 * NOAA's Global Surface Summary of the Day as published since 2020 (one quoted CSV per station and
 * year; NOAA's GSOD readme): `STATION,DATE,LATITUDE,LONGITUDE,ELEVATION,NAME,TEMP,TEMP_ATTRIBUTES,
 * DEWP,…,MAX,MAX_ATTRIBUTES,MIN,MIN_ATTRIBUTES,PRCP,PRCP_ATTRIBUTES,SNDP,FRSHTT`.
 *
 * Units are °F, knots and inches; missing is 9999.9 (temperatures), 999.9 (wind) and 99.99
 * (precipitation) — a reader that took 99.99 as a number would record 2.5 m of rain. A `*` beside MAX
 * or MIN says the value was taken from the hourly reports: kept, counted as derived. PRCP's flag
 * A–G says how many reports it sums (kept); H (a 0 with precipitation reported in the hours) and I
 * (no report at all) are not totals: dropped, counted. The days are UTC days, which the catalog and
 * answers say (station-formats.ts).
 */
import { readInputBytes, readInputText } from './input-bytes.ts';
import { basename } from 'node:path';
import { BuildError } from '../build-error.ts';
import { splitFields } from './csv-fields.ts';
import type { Imported, ImportedStation } from './imported.ts';

/** GSOD fields the contract has a daily type for: the type, the missing marker and the conversion. */
export const GSOD_FIELDS: Readonly<
  Record<string, { type: string; missing: number; convert: (v: number) => number; attributes?: string }>
> = {
  TEMP: { type: 'temperature_mean', missing: 9999.9, convert: fahrenheit, attributes: 'TEMP_ATTRIBUTES' },
  MAX: { type: 'temperature_max', missing: 9999.9, convert: fahrenheit, attributes: 'MAX_ATTRIBUTES' },
  MIN: { type: 'temperature_min', missing: 9999.9, convert: fahrenheit, attributes: 'MIN_ATTRIBUTES' },
  DEWP: { type: 'dew_point_mean', missing: 9999.9, convert: fahrenheit, attributes: 'DEWP_ATTRIBUTES' },
  PRCP: { type: 'rain_sum', missing: 99.99, convert: (v) => round(v * 25.4, 1), attributes: 'PRCP_ATTRIBUTES' },
  WDSP: { type: 'wind_speed_mean', missing: 999.9, convert: knots, attributes: 'WDSP_ATTRIBUTES' },
};

/** Fields counted as read but with no contract type (their values are not imported). */
const UNMAPPED = ['SLP', 'STP', 'VISIB', 'MXSPD', 'GUST', 'SNDP'];
const UNMAPPED_MISSING: Record<string, number> = {
  SLP: 9999.9,
  STP: 9999.9,
  VISIB: 999.9,
  MXSPD: 999.9,
  GUST: 999.9,
  SNDP: 999.9,
};

function round(v: number, digits: number): number {
  return Number(v.toFixed(digits));
}
function fahrenheit(f: number): number {
  return round(((f - 32) * 5) / 9, 1);
}
function knots(k: number): number {
  return round(k * 0.514444, 1);
}

/**
 * One station-day's fields into `into`: `value(field)` is the field's text (undefined when the file
 * has no such field), `flag(field)` the flag beside it (`*` on MAX/MIN, A–I on PRCP).
 */
function takeDay(
  into: Imported,
  id: string,
  day: string,
  value: (field: string) => string | undefined,
  flag: (field: string) => string,
  notANumber: (field: string, raw: string) => Error,
): void {
  for (const [field, spec] of Object.entries(GSOD_FIELDS)) {
    const raw = value(field);
    if (raw === undefined) continue;
    const v = Number(raw);
    if (raw === '' || !Number.isFinite(v)) throw notANumber(field, raw);
    if (v === spec.missing) {
      into.drop(id, spec.type, `sentinel ${spec.missing}`);
      continue;
    }
    const f = flag(field).trim();
    if (field === 'PRCP' && (f === 'H' || f === 'I')) {
      into.drop(id, spec.type, `precipitation flag ${f}`);
      continue;
    }
    const c = into.keep(id, day, spec.type, spec.convert(v));
    if ((field === 'MAX' || field === 'MIN') && f === '*') c.derived++;
  }
  for (const field of UNMAPPED) {
    const raw = value(field);
    if (raw !== undefined && raw !== '' && Number(raw) !== UNMAPPED_MISSING[field]) into.skip(field);
  }
}

/**
 * GSOD's older fixed-width form (`STN-WBAN-YYYY.op`, gzipped as published; GSOD_DESC.txt): a header
 * line, then a line per day with the same fields by column — STN 1–6, WBAN 8–12, YEARMODA 15–22,
 * TEMP 25–30, DEWP 36–41, SLP 47–52, STP 58–63, VISIB 69–73, WDSP 79–83, MXSPD 89–93, GUST 96–100,
 * MAX 103–108 and its flag 109, MIN 111–116 and its flag 117, PRCP 119–123 and its flag 124, SNDP
 * 126–130. It carries no positions: stations come from NOAA's isd-history.csv, keyed USAF + WBAN as
 * the CSV form names them (`68816099999`).
 */
export async function readGsodOpFile(
  path: string,
  stations: ReadonlyMap<string, ImportedStation>,
  into: Imported,
): Promise<void> {
  const bytes = await readInputBytes(path);
  const name = basename(path);
  const cols: Record<string, [number, number]> = {
    TEMP: [24, 30],
    DEWP: [35, 41],
    SLP: [46, 52],
    STP: [57, 63],
    VISIB: [68, 73],
    WDSP: [78, 83],
    MXSPD: [88, 93],
    GUST: [95, 100],
    MAX: [102, 108],
    MIN: [110, 116],
    PRCP: [118, 123],
    SNDP: [125, 130],
  };
  const flagAt: Record<string, number> = { MAX: 108, MIN: 116, PRCP: 123 };
  let rows = 0;
  bytes
    .toString('latin1')
    .split(/\r?\n/)
    .forEach((line, i) => {
      if (line.trim() === '' || line.startsWith('STN')) return;
      const ymd = line.slice(14, 22);
      const day = `${ymd.slice(0, 4)}-${ymd.slice(4, 6)}-${ymd.slice(6, 8)}`;
      const t = Date.parse(`${day}T00:00:00Z`);
      if (
        !/^\d{8}$/.test(ymd) ||
        line.length < 123 ||
        Number.isNaN(t) ||
        new Date(t).toISOString().slice(0, 10) !== day
      ) {
        throw new BuildError(
          'invalid_input',
          `${name} line ${i + 1} is not a GSOD .op line (STN, WBAN, YEARMODA, then the fields by column): ${JSON.stringify(line.slice(0, 40))}.`,
          { file: path, row: i + 1 },
        );
      }
      const id = `${line.slice(0, 6).trim()}${line.slice(7, 12).trim()}`;
      const station = stations.get(id);
      if (!station)
        throw new BuildError(
          'invalid_input',
          `${name} line ${i + 1} is station ${id}, which the station list does not hold: pass NOAA's isd-history.csv that lists it (--stations).`,
          { file: path, row: i + 1 },
        );
      into.stations.set(id, { ...station, station_id: id });
      rows++;
      takeDay(
        into,
        id,
        day,
        (field) => (cols[field] ? line.slice(cols[field][0], cols[field][1]).trim() : undefined),
        (field) => (flagAt[field] === undefined ? '' : (line[flagAt[field]] ?? '')),
        (field, raw) =>
          new BuildError('invalid_input', `${name} line ${i + 1}: ${field} ${JSON.stringify(raw)} is not a number.`, {
            file: path,
            row: i + 1,
            column: field,
          }),
      );
    });
  into.files.push({ path, rows });
}

/** Reads one GSOD CSV file into `into` (stations from its own columns). */
export async function readGsodFile(path: string, into: Imported): Promise<void> {
  const text = await readInputText(path, 'utf8');
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const name = basename(path);
  const fail = (row: number, why: string, column?: string) =>
    new BuildError('invalid_input', `${name} line ${row}: ${why}`, {
      file: path,
      row,
      ...(column ? { column } : {}),
    });
  if (lines.length === 0) throw fail(1, 'the file is empty; a GSOD CSV starts with its header line.');
  const header = (splitFields(lines[0]!) ?? []).map((h) => h.trim());
  const col = (h: string) => header.indexOf(h);
  for (const need of ['STATION', 'DATE', 'LATITUDE', 'LONGITUDE', 'ELEVATION', 'NAME']) {
    if (col(need) < 0)
      throw fail(1, `no ${need} column; this is not a GSOD CSV (columns ${header.slice(0, 8).join(', ')}, …).`, need);
  }
  let rows = 0;
  for (let i = 1; i < lines.length; i++) {
    const f = splitFields(lines[i]!);
    if (!f) throw fail(i + 1, 'its quotes do not close, or text follows a closing quote.');
    if (f.length !== header.length) throw fail(i + 1, `${f.length} fields where the header has ${header.length}.`);
    const get = (h: string) => (f[col(h)] ?? '').trim();
    // Ids are text: 11 characters (USAF + WBAN), leading zeros and letters kept.
    const id = get('STATION');
    const day = get('DATE');
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) throw fail(i + 1, `DATE ${JSON.stringify(day)} is not yyyy-mm-dd.`, 'DATE');
    const lat = Number(get('LATITUDE'));
    const lon = Number(get('LONGITUDE'));
    const elevation = get('ELEVATION') === '' ? null : Number(get('ELEVATION'));
    if (id === '' || !Number.isFinite(lat) || !Number.isFinite(lon) || get('LATITUDE') === '')
      throw fail(i + 1, 'a station without STATION, LATITUDE or LONGITUDE.', 'STATION');
    if (!into.stations.has(id)) {
      into.stations.set(id, {
        station_id: id,
        name: get('NAME'),
        lat,
        lon,
        elevation: elevation === null || !Number.isFinite(elevation) || elevation <= -999 ? null : elevation,
      });
    }
    rows++;
    takeDay(
      into,
      id,
      day,
      (field) => (col(field) < 0 ? undefined : get(field)),
      (field) =>
        field === 'PRCP' ? get('PRCP_ATTRIBUTES') : col(`${field}_ATTRIBUTES`) < 0 ? '' : get(`${field}_ATTRIBUTES`),
      (field, raw) => fail(i + 1, `${field} ${JSON.stringify(raw)} is not a number.`, field),
    );
  }
  into.files.push({ path, rows });
}
