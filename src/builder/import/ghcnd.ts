/**
 * GHCN-Daily as NOAA publishes it (readme.txt of the ghcnd archive): `.dly` files of fixed-width
 * lines, one per station, year, month and element, and the station list `ghcnd-stations.txt`.
 *
 * A line: ID (cols 1–11), YEAR (12–15), MONTH (16–17), ELEMENT (18–21), then for days 1–31 a VALUE
 * (5 columns) and its MFLAG, QFLAG and SFLAG (one column each). −9999 is missing; days past the
 * month's end hold −9999 and are not days. A QFLAG that is not blank means the value failed that
 * quality check: dropped, counted by code. MFLAG `T` on PRCP is a trace: kept as 0 (the file holds
 * 0), counted. Days are the observer's days, not UTC days.
 */
import { readInputBytes, readInputText } from './input-bytes.ts';
import { basename } from 'node:path';
import { BuildError } from '../build-error.ts';
import type { Imported, ImportedStation } from './imported.ts';

/** GHCN-Daily elements the contract has a daily type for: the type and the factor into its unit. */
export const GHCND_ELEMENTS: Readonly<Record<string, { type: string; factor: number }>> = {
  TMAX: { type: 'temperature_max', factor: 0.1 }, // tenths of °C
  TMIN: { type: 'temperature_min', factor: 0.1 },
  TAVG: { type: 'temperature_mean', factor: 0.1 },
  PRCP: { type: 'rain_sum', factor: 0.1 }, // tenths of mm
  EVAP: { type: 'evaporation_sum', factor: 0.1 }, // tenths of mm (pan evaporation)
  AWND: { type: 'wind_speed_mean', factor: 0.1 }, // tenths of m/s
};

const MISSING = -9999;

/** Reads `ghcnd-stations.txt`: ID, LATITUDE, LONGITUDE, ELEVATION (−999.9 unknown), NAME, by column. */
export function parseGhcndStations(text: string, file: string): Map<string, ImportedStation> {
  const out = new Map<string, ImportedStation>();
  const lines = text.split(/\r?\n/);
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const id = line.slice(0, 11).trim();
    const lat = Number(line.slice(12, 20));
    const lon = Number(line.slice(21, 30));
    const elevation = Number(line.slice(31, 37));
    if (id === '' || !Number.isFinite(lat) || !Number.isFinite(lon) || line.slice(12, 20).trim() === '') {
      throw new BuildError(
        'invalid_input',
        `${file} line ${i + 1} is not a GHCN-Daily station line (ID in columns 1–11, latitude 13–20, longitude 22–30): ${JSON.stringify(line.slice(0, 60))}.`,
        { file, row: i + 1 },
      );
    }
    out.set(id, {
      station_id: id,
      name: line.slice(41, 71).trim(),
      lat,
      lon,
      elevation: !Number.isFinite(elevation) || elevation <= -999 ? null : elevation,
    });
  });
  return out;
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** One value of an element on a day, with its flags, whichever file form it came in. */
function takeValue(
  into: Imported,
  id: string,
  day: string,
  element: string,
  value: number,
  mflag: string,
  qflag: string,
): void {
  const mapped = GHCND_ELEMENTS[element];
  if (!mapped) {
    if (value !== MISSING) into.skip(element);
    return;
  }
  if (value === MISSING) {
    into.drop(id, mapped.type, 'sentinel −9999');
    return;
  }
  if (qflag !== ' ' && qflag !== '') {
    into.drop(id, mapped.type, `quality flag ${qflag}`);
    return;
  }
  // MFLAG P: "missing presumed zero" in the source's own words: no one measured it.
  if (mflag === 'P') {
    into.drop(id, mapped.type, 'missing presumed zero (MFLAG P)');
    return;
  }
  // Tenths into units by decimal shifting, so 253 is 25.3, never 25.299999999999997.
  const c = into.keep(id, day, mapped.type, Number((value * mapped.factor).toFixed(1)));
  if (element === 'PRCP' && mflag === 'T') c.trace++;
}

/** The station `id` of `file` line `row`, from the station list, or a BuildError naming what to pass. */
function listed(stations: ReadonlyMap<string, ImportedStation>, id: string, path: string, row: number) {
  const station = stations.get(id);
  if (!station) {
    throw new BuildError(
      'invalid_input',
      `${basename(path)} line ${row} is station ${id}, which the station list does not hold: pass the ghcnd-stations.txt that lists it (--stations).`,
      { file: path, row },
    );
  }
  return station;
}

/**
 * Reads one file of NOAA's `by_station` form (readme-by_station.txt; gzipped as published): no
 * header, a line per value: ID, YYYYMMDD, ELEMENT, DATA VALUE, M-FLAG, Q-FLAG, S-FLAG, OBS-TIME, in
 * the same units and flags as `.dly`.
 */
async function readGhcndCsv(path: string, stations: ReadonlyMap<string, ImportedStation>, into: Imported) {
  const bytes = await readInputBytes(path);
  let rows = 0;
  bytes
    .toString('latin1')
    .split(/\r?\n/)
    .forEach((line, i) => {
      if (line.trim() === '') return;
      const f = line.split(',');
      const [id = '', date = '', element = '', raw = '', mflag = '', qflag = ''] = f.map((x) => x.trim());
      const value = Number(raw);
      if (
        f.length < 7 ||
        !/^\d{8}$/.test(date) ||
        !/^[A-Z0-9]{4}$/.test(element) ||
        raw === '' ||
        !Number.isInteger(value)
      ) {
        throw new BuildError(
          'invalid_input',
          `${basename(path)} line ${i + 1} is not a GHCN-Daily by_station line (ID,YYYYMMDD,ELEMENT,VALUE,M,Q,S,OBS-TIME): ${JSON.stringify(line.slice(0, 60))}.`,
          { file: path, row: i + 1 },
        );
      }
      const day = `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}`;
      if (
        Number.isNaN(Date.parse(`${day}T00:00:00Z`)) ||
        new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) !== day
      ) {
        throw new BuildError('invalid_input', `${basename(path)} line ${i + 1}: ${date} names no day.`, {
          file: path,
          row: i + 1,
        });
      }
      into.stations.set(id, listed(stations, id, path, i + 1));
      rows++;
      takeValue(into, id, day, element, value, mflag, qflag);
    });
  into.files.push({ path, rows });
}

/** Reads one `.dly` file (or a `by_station` CSV, by its name) into `into`; stations must be in `stations` (the station list). */
export async function readGhcndFile(
  path: string,
  stations: ReadonlyMap<string, ImportedStation>,
  into: Imported,
): Promise<void> {
  if (/\.csv(\.gz)?$/i.test(path)) return readGhcndCsv(path, stations, into);
  const text = await readInputText(path, 'latin1');
  const lines = text.split(/\r?\n/);
  let rows = 0;
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const id = line.slice(0, 11).trim();
    const year = Number(line.slice(11, 15));
    const month = Number(line.slice(15, 17));
    const element = line.slice(17, 21);
    if (line.length < 21 + 8 || !/^\d{4}$/.test(line.slice(11, 15)) || !(month >= 1 && month <= 12)) {
      throw new BuildError(
        'invalid_input',
        `${basename(path)} line ${i + 1} is not a GHCN-Daily line (ID, year, month, element, then 31 × value and flags): ${JSON.stringify(line.slice(0, 40))}.`,
        { file: path, row: i + 1 },
      );
    }
    const station = listed(stations, id, path, i + 1);
    into.stations.set(id, station);
    rows++;
    const days = daysIn(year, month);
    for (let d = 1; d <= days; d++) {
      const at = 21 + (d - 1) * 8;
      const raw = line.slice(at, at + 5);
      const value = Number(raw);
      if (raw.trim() === '' || !Number.isInteger(value)) {
        throw new BuildError(
          'invalid_input',
          `${basename(path)} line ${i + 1}, ${element} of day ${d}: ${JSON.stringify(raw)} is not a GHCN-Daily value (a whole number, −9999 missing).`,
          { file: path, row: i + 1, column: element },
        );
      }
      const day = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
      takeValue(into, id, day, element, value, line[at + 5] ?? ' ', line[at + 6] ?? ' ');
    }
  });
  into.files.push({ path, rows });
}
