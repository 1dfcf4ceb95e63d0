/**
 * NOAA's ISD-Lite (isd-lite-format.pdf): one file per station and year, `USAF-WBAN-YYYY` (gzipped as
 * published), a line per UTC hour: year, month, day, hour, air temperature, dew point, sea-level
 * pressure (× 10), wind direction (°), wind speed (m/s × 10), sky cover code, and the liquid
 * precipitation of the last hour and of the last six hours (mm × 10). −9999 is missing; −1
 * precipitation is a trace (kept as 0, counted). Names, positions and heights come from NOAA's
 * station list (`isd-history.csv`).
 *
 * Times are UTC: they are written with their zone and the build converts them into the dataset's.
 * A reading at hour H is the hour ending at H (the project's hourly convention, docs/data.md). The
 * six-hour totals are not spread over hours (nothing says how the rain fell): not imported, named.
 * Wind is as ISD measures it (at about 10 m), not converted to another height. The hour's air
 * temperature is also its lowest and highest (`temperature_min`, `_max`), so the build derives a
 * day's extremes from the day's readings, as NOAA does for GSOD.
 */
import { readInputBytes } from './input-bytes.ts';
import { basename } from 'node:path';
import { BuildError } from '../build-error.ts';
import { splitFields } from './csv-fields.ts';
import type { Imported, ImportedStation } from './imported.ts';

/** The columns after the time, in order: the contract's hourly type and the factor into its unit, or the field's name when none takes it. */
const COLUMNS: ReadonlyArray<{ type: string; factor: number } | { field: string }> = [
  { type: 'temperature_mean', factor: 0.1 },
  { type: 'dew_point', factor: 0.1 },
  { field: 'SEA_LEVEL_PRESSURE' },
  { type: 'wind_direction', factor: 1 },
  { type: 'wind_speed', factor: 0.1 },
  { field: 'SKY_COVER' },
  { type: 'rain', factor: 0.1 },
  { field: 'PRECIP_6H (six-hour totals are not spread over hours)' },
];

/** Reads `isd-history.csv` (USAF, WBAN, STATION NAME, …, LAT, LON, ELEV(M)): station `USAF-WBAN` → station. */
export function parseIsdHistory(text: string, file: string): Map<string, ImportedStation> {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const header = (splitFields(lines[0] ?? '') ?? []).map((h) => h.trim());
  const at = (h: string) => header.indexOf(h);
  for (const need of ['USAF', 'WBAN', 'STATION NAME', 'LAT', 'LON', 'ELEV(M)']) {
    if (at(need) < 0)
      throw new BuildError('invalid_input', `${file} has no ${need} column: it is not NOAA's isd-history.csv.`, {
        file,
        row: 1,
      });
  }
  const out = new Map<string, ImportedStation>();
  for (const line of lines.slice(1)) {
    const f = splitFields(line);
    if (!f) continue;
    const lat = Number(f[at('LAT')]);
    const lon = Number(f[at('LON')]);
    if (f[at('LAT')]?.trim() === '' || !Number.isFinite(lat) || !Number.isFinite(lon)) continue;
    const elev = f[at('ELEV(M)')]?.trim() ?? '';
    const id = `${f[at('USAF')]}-${f[at('WBAN')]}`;
    out.set(id, {
      station_id: id,
      name: f[at('STATION NAME')]?.trim() ?? '',
      lat,
      lon,
      elevation: elev === '' || Number(elev) <= -999 ? null : Number(elev),
    });
  }
  return out;
}

/** Reads one ISD-Lite file (gzipped or not) into `into`. */
export async function readIsdLiteFile(
  path: string,
  stations: ReadonlyMap<string, ImportedStation>,
  into: Imported,
): Promise<void> {
  const name = basename(path);
  const m = /^(\w{6})-(\w{5})-(\d{4})(\.gz)?$/.exec(name);
  if (!m) {
    throw new BuildError(
      'invalid_input',
      `${name} is not named as NOAA names ISD-Lite files (USAF-WBAN-YYYY, e.g. 688160-99999-2019.gz): the name is the station.`,
      { file: path },
    );
  }
  const id = `${m[1]}-${m[2]}`;
  const station = stations.get(id);
  if (!station)
    throw new BuildError(
      'invalid_input',
      `${name} is station ${id}, which the station list does not hold: pass NOAA's isd-history.csv that lists it (--stations).`,
      { file: path },
    );
  into.stations.set(id, station);
  const bytes = await readInputBytes(path);
  const lines = bytes.toString('latin1').split(/\r?\n/);
  let rows = 0;
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const f = line.trim().split(/\s+/);
    const [y, mo, d, h] = f.slice(0, 4).map(Number) as [number, number, number, number];
    if (
      f.length !== 12 ||
      f.some((x) => !/^-?\d+$/.test(x)) ||
      !(mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h >= 0 && h <= 23) ||
      new Date(Date.UTC(y, mo - 1, d)).getUTCDate() !== d
    ) {
      throw new BuildError(
        'invalid_input',
        `${name} line ${i + 1} is not an ISD-Lite line (year, month, day, hour and 8 whole numbers): ${JSON.stringify(line.slice(0, 70))}.`,
        { file: path, row: i + 1 },
      );
    }
    rows++;
    const time = `${String(y).padStart(4, '0')}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}T${String(h).padStart(2, '0')}:00:00Z`;
    COLUMNS.forEach((col, k) => {
      const v = Number(f[4 + k]);
      if ('field' in col) {
        if (v !== -9999) into.skip(col.field);
        return;
      }
      if (v === -9999) {
        into.drop(id, col.type, 'sentinel −9999');
        return;
      }
      // ISD-Lite codes a calm as direction 0 (north is 360): no direction, never north.
      if (col.type === 'wind_direction' && v === 0) {
        into.drop(id, col.type, 'no direction (calm)');
        return;
      }
      if (col.type === 'rain' && v === -1) {
        into.keepAt('hourly', id, time, col.type, 0).trace++;
        return;
      }
      const value = col.factor === 1 ? v : Number((v * col.factor).toFixed(1));
      into.keepAt('hourly', id, time, col.type, value);
      // The hour's one reading is its lowest and highest too, so a day's extremes are its lowest and
      // highest reading, as NOAA derives GSOD's from the hourly reports.
      if (col.type === 'temperature_mean') {
        into.put('hourly', id, time, 'temperature_min', value);
        into.put('hourly', id, time, 'temperature_max', value);
      }
    });
  });
  into.files.push({ path, rows });
}
