/**
 * GHCNh, NOAA's hourly archive since ISD stopped (2025-08-27): pipe-separated `GHCNh_<id>_<year>.psv`
 * files, a line per report, columns looked up by their header names (the header changed between
 * releases: `STATION` or `Station_ID`, `LATITUDE` or `Latitude`, …; a repeated header line inside a
 * file is passed over). Each variable has its value (metric units, an empty field when missing) and
 * `_Measurement_Code`, `_Quality_Code`, `_Report_Type`, `_Source_Code`, `_Source_Station_ID` columns.
 *
 * - Times (`DATE`, UTC) are at any minute; a report belongs to the hour it ends in (10:51 → 11:00,
 *   the project's convention) and an hour's reports become one value by the type's rule (the mean
 *   of temperatures, the direction of the mean wind vector); rain is the largest report of the hour,
 *   as special reports carry running totals since the routine one, never a sum of them. The hour's
 *   lowest and highest temperature report are its `temperature_min` and `_max`, so a day's extremes
 *   are its lowest and highest report (as NOAA derives GSOD's from the hourly reports).
 * - A value whose quality code says it failed is dropped and counted by code: the legacy ISD codes
 *   2, 3, 6, 7 (suspect, erroneous) and GHCNh's own checks, a lower-case letter.
 * - A trace of precipitation (measurement code `T`) is 0, counted; a calm (`C`) or variable (`V`)
 *   wind, or direction 999, has no direction; multi-hour precipitation columns are not spread.
 */
import { stat } from 'node:fs/promises';
import { MAX_INPUT_BYTES, readInputBytes } from './input-bytes.ts';
import { basename } from 'node:path';
import { BuildError } from '../build-error.ts';
import type { Imported, ImportedStation } from './imported.ts';
import { combine } from './mapped-csv.ts';

/** GHCNh variables the contract has an hourly type for. */
export const GHCNH_VARIABLES: Readonly<Record<string, string>> = {
  temperature: 'temperature_mean',
  dew_point_temperature: 'dew_point',
  relative_humidity: 'humidity',
  wind_speed: 'wind_speed',
  wind_gust: 'wind_speed_max',
  wind_direction: 'wind_direction',
  precipitation: 'rain',
};

/** Variables read but not imported (named in the report with their values' count). */
const UNMAPPED = [
  'station_level_pressure',
  'sea_level_pressure',
  'wet_bulb_temperature',
  'snow_depth',
  'visibility',
  'altimeter',
  'precipitation_3_hour',
  'precipitation_6_hour',
  'precipitation_9_hour',
  'precipitation_12_hour',
  'precipitation_15_hour',
  'precipitation_18_hour',
  'precipitation_21_hour',
  'precipitation_24_hour',
];

/**
 * Quality codes that mean a value failed: ISD's suspect and erroneous codes (2, 3, 6, 7), and the
 * flags of GHCNh's own checks, upper case (L logical, F frequent value, U diurnal, D distribution,
 * W world record, K streak, C climatological, T timestamp, S spike, V variance, N neighbour,
 * E clean-up, H high flag rate) and lower case (o, d, h, w, p, …). ISD's legacy C (AWOS whole
 * degrees) and U (an edited value) share a letter with two checks; a value so flagged is dropped and
 * counted by its code, never kept as a measurement that may have failed. ISD's A, I, M, P and R
 * (accepted, inserted, changed or replaced by a validator) are kept.
 */
function failed(code: string): boolean {
  return /^[2367]$/.test(code) || /^[LFUDWKCTSVNEH]$/.test(code) || /^[a-z]$/.test(code);
}

/** Reads one GHCNh file — PSV (gzipped or not) or Parquet — into `into`; hourly values, by the hour they end in. */
export async function readGhcnhFile(path: string, into: Imported): Promise<void> {
  if (/\.parquet$/i.test(path)) return takeGhcnhRows(path, ...(await parquetRows(path)), into);
  const bytes = await readInputBytes(path);
  const lines = bytes.toString('utf8').split(/\r?\n/);
  const header = (lines[0] ?? '').split('|').map((h) => h.trim());
  const rows = function* () {
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      if (line.trim() === '' || line === lines[0]) continue;
      yield { row: i + 1, fields: line.split('|') };
    }
  };
  return takeGhcnhRows(path, header, rows(), into);
}

/**
 * GHCNh's Parquet form: the same columns as its PSV, typed. Read whole with hyparquet (a station-year
 * is a few MB); each value becomes the text its PSV would hold (a time as `yyyy-mm-ddThh:mm:ss`).
 */
async function parquetRows(path: string): Promise<[string[], Iterable<{ row: number; fields: string[] }>]> {
  const { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects, parquetSchema } = await import('hyparquet');
  const { compressors } = await import('hyparquet-compressors');
  let file: Awaited<ReturnType<typeof asyncBufferFromFile>>;
  let header: string[];
  const size = (await stat(path)).size;
  if (size > MAX_INPUT_BYTES)
    throw new BuildError(
      'invalid_input',
      `${path} is ${(size / 2 ** 20).toFixed(0)} MiB; an input file may hold at most ${MAX_INPUT_BYTES / 2 ** 20} MiB. Split it and import the parts.`,
      { file: path },
    );
  try {
    file = await asyncBufferFromFile(path);
    const metadata = await parquetMetadataAsync(file);
    header = parquetSchema(metadata).children.map((c) => c.element.name);
  } catch (err) {
    throw new BuildError('invalid_input', `${basename(path)} is not a Parquet file: ${(err as Error).message}`, {
      file: path,
    });
  }
  let objects: Array<Record<string, unknown>>;
  try {
    objects = (await parquetReadObjects({ file, compressors })) as Array<Record<string, unknown>>;
  } catch (err) {
    throw new BuildError('invalid_input', `${basename(path)}: its data could not be read: ${(err as Error).message}`, {
      file: path,
      cause: err,
    });
  }
  const text = (v: unknown): string =>
    v === null || v === undefined
      ? ''
      : v instanceof Date
        ? v.toISOString().slice(0, 19)
        : typeof v === 'bigint'
          ? String(v)
          : String(v);
  const rows = function* () {
    for (const [i, o] of objects.entries()) yield { row: i + 1, fields: header.map((h) => text(o[h])) };
  };
  return [header, rows()];
}

/** A report's time from its Year, Month, Day, Hour and Minute fields (at `k`), as DATE writes it. */
function dateOfParts(f: string[], k: number[]): string {
  const [y, mo, d, h, mi] = k.map((i) => (f[i] ?? '').trim());
  const two = (x: string | undefined) => (x ?? '').padStart(2, '0');
  return `${y}-${two(mo)}-${two(d)}T${two(h)}:${two(mi)}:00`;
}

/** Takes GHCNh reports (`fields` in `header`'s order, as the PSV holds them) into `into`. */
function takeGhcnhRows(
  path: string,
  header: string[],
  lines: Iterable<{ row: number; fields: string[] }>,
  into: Imported,
): void {
  const name = basename(path);
  const at = (...names: string[]) => names.map((n) => header.indexOf(n)).find((k) => k >= 0) ?? -1;
  const cols = {
    id: at('STATION', 'Station_ID'),
    name: at('Station_name', 'STATION_NAME'),
    // DATE, or (in files that have none) Year, Month, Day, Hour and Minute.
    date: at('DATE') >= 0 ? at('DATE') : ['Year', 'Month', 'Day', 'Hour', 'Minute'].every((c) => at(c) >= 0) ? -2 : -1,
    lat: at('LATITUDE', 'Latitude'),
    lon: at('LONGITUDE', 'Longitude'),
    elev: at('ELEVATION', 'Elevation'),
  };
  for (const [k, v] of Object.entries(cols)) {
    if (v === -1 && k !== 'name')
      throw new BuildError(
        'invalid_input',
        `${name} has no ${k === 'id' ? 'STATION' : k === 'date' ? 'DATE' : k.toUpperCase()} column: it is not a GHCNh file (its header starts ${JSON.stringify(header.slice(0, 4).join('|'))}).`,
        { file: path, row: 1 },
      );
  }
  const parts = ['Year', 'Month', 'Day', 'Hour', 'Minute'].map((c) => at(c));
  // Each variable's columns, found once: a line is split, then read by index.
  const variables = Object.entries(GHCNH_VARIABLES)
    .map(([variable, type]) => ({
      variable,
      type,
      value: header.indexOf(variable),
      quality: header.indexOf(`${variable}_Quality_Code`),
      measurement: header.indexOf(`${variable}_Measurement_Code`),
    }))
    .filter((v) => v.value >= 0);
  const unmapped = UNMAPPED.map((variable) => ({ variable, k: header.indexOf(variable) })).filter((u) => u.k >= 0);
  // Station → hour → type → the reports' values.
  const pending = new Map<string, Map<string, Map<string, number[]>>>();
  let rows = 0;
  // Reports come in time order: the hour's key is made once per hour, not once per report.
  let lastHour = Number.NaN;
  let hourKey = '';
  for (const { row, fields: f } of lines) {
    const i = row - 1;
    if (f[cols.id]?.trim() === header[cols.id]) continue;
    const id = (f[cols.id] ?? '').trim();
    const date = cols.date >= 0 ? (f[cols.date] ?? '').trim() : dateOfParts(f, parts);
    const t = Date.parse(`${date}Z`);
    // Date.parse rolls 2024-02-30 over into March: a day that is not one is refused, never moved.
    if (
      id === '' ||
      !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(date) ||
      Number.isNaN(t) ||
      new Date(t).toISOString().slice(0, 10) !== date.slice(0, 10)
    ) {
      throw new BuildError(
        'invalid_input',
        `${name} line ${i + 1}: station ${JSON.stringify(id)} at ${JSON.stringify(date)} is not a GHCNh report (STATION and DATE yyyy-mm-ddThh:mm:ss).`,
        { file: path, row: i + 1 },
      );
    }
    if (!into.stations.has(id)) {
      const lat = Number(f[cols.lat]);
      const lon = Number(f[cols.lon]);
      const elev = (f[cols.elev] ?? '').trim();
      if (!Number.isFinite(lat) || !Number.isFinite(lon) || (f[cols.lat] ?? '').trim() === '')
        throw new BuildError('invalid_input', `${name} line ${i + 1}: station ${id} has no position.`, {
          file: path,
          row: i + 1,
        });
      into.stations.set(id, {
        station_id: id,
        name: cols.name >= 0 ? (f[cols.name] ?? '').trim() : id,
        lat,
        lon,
        elevation: elev === '' || Number(elev) <= -999 || Number(elev) >= 9999 ? null : Number(elev),
      });
    }
    rows++;
    const hourNumber = Math.ceil(t / 3_600_000);
    if (hourNumber !== lastHour) {
      lastHour = hourNumber;
      hourKey = `${new Date(hourNumber * 3_600_000).toISOString().slice(0, 19)}Z`;
    }
    const hour = hourKey;
    for (const { variable, type, value: k, quality, measurement: m } of variables) {
      const raw = (f[k] ?? '').trim();
      if (raw === '') continue;
      const value = Number(raw);
      const code = quality >= 0 ? (f[quality] ?? '').trim() : '';
      const measurement = m >= 0 ? (f[m] ?? '').trim() : '';
      if (!Number.isFinite(value)) {
        throw new BuildError(
          'invalid_input',
          `${name} line ${i + 1}: ${variable} ${JSON.stringify(raw)} is not a number.`,
          {
            file: path,
            row: i + 1,
            column: variable,
          },
        );
      }
      const counts = into.countsOf(id, type);
      if (failed(code)) {
        into.drop(id, type, `quality code ${code}`);
        continue;
      }
      if (variable === 'wind_direction' && (value === 999 || /^[CV]/.test(measurement))) {
        into.drop(
          id,
          type,
          value === 999 ? 'direction 999' : `no direction (${measurement.startsWith('C') ? 'calm' : 'variable'})`,
        );
        continue;
      }
      let v = value;
      if (variable === 'precipitation' && /^T/.test(measurement)) {
        v = 0;
        counts.trace++;
      }
      counts.read++;
      counts.kept++;
      let hours = pending.get(id);
      if (!hours) pending.set(id, (hours = new Map()));
      let types = hours.get(hour);
      if (!types) hours.set(hour, (types = new Map()));
      push(types, type, v);
      // The hour's lowest and highest temperature report, so the build derives a day's extremes from its reports.
      if (type === 'temperature_mean') {
        push(types, 'temperature_min', v);
        push(types, 'temperature_max', v);
      }
    }
    for (const { variable, k } of unmapped) if ((f[k] ?? '').trim() !== '') into.skip(variable);
  }
  for (const [id, hours] of pending) {
    for (const [hour, types] of hours) {
      for (const [type, values] of types) {
        // Rain: the largest report of the hour (special reports carry running totals), never their sum.
        const v = type === 'rain' ? values.reduce((a, b) => (b > a ? b : a), -Infinity) : combine(type, values);
        into.put('hourly', id, hour, type, Number(v.toFixed(6)));
      }
    }
  }
  into.files.push({ path, rows });
}

/** Adds `v` to the values of `type` in `types`. */
function push(types: Map<string, number[]>, type: string, v: number): void {
  const list = types.get(type);
  if (list) list.push(v);
  else types.set(type, [v]);
}

/** The columns of NOAA's GHCNh station list, in order (its header, where a release writes one). */
const STATION_LIST_COLUMNS = 11;

/**
 * NOAA's GHCNh station list (`ghcnh-station-list.csv`: GHCN_ID, LATITUDE, LONGITUDE, ELEVATION,
 * STATE, NAME, GSN, (US)HCN_(US)CRN, WMO_ID, ICAO, ISO_CODE; a header line in some releases, none in
 * others). Names are not quoted and may hold a comma, so the fields after the name are counted from
 * the end. Elevations NOAA writes as placeholders (−999.9, −999.0, 8191.0, 9999.0) are unknown, not
 * heights. A line without a position is passed over; a file where no line has one is not the list.
 */
export function parseGhcnhStationList(text: string, file: string): Map<string, ImportedStation> {
  const out = new Map<string, ImportedStation>();
  for (const line of text.split(/\r?\n/)) {
    const f = line.split(',');
    if (f.length < 6 || /^GHCN_ID$/i.test(f[0]!.trim())) continue;
    const id = f[0]!.trim();
    const [lat, lon, elev] = [Number(f[1]), Number(f[2]), Number(f[3])];
    if (!/^[A-Z0-9_]{11}$/.test(id) || f[1]!.trim() === '' || f[2]!.trim() === '') continue;
    if (!(Math.abs(lat) <= 90 && Math.abs(lon) <= 180)) continue;
    const nameEnd = f.length >= STATION_LIST_COLUMNS ? f.length - (STATION_LIST_COLUMNS - 6) : f.length;
    out.set(id, {
      station_id: id,
      name: f.slice(5, nameEnd).join(',').trim(),
      lat,
      lon,
      elevation: f[3]!.trim() === '' || !Number.isFinite(elev) || elev <= -999 || elev >= 8000 ? null : elev,
    });
  }
  if (out.size === 0)
    throw new BuildError(
      'invalid_input',
      `${file} has no station line (GHCN_ID, LATITUDE, LONGITUDE, …): it is not NOAA's GHCNh station list.`,
      { file },
    );
  return out;
}
