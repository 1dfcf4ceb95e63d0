/**
 * Meteostat's bulk data (dev.meteostat.net): one CSV per station (and year), gzipped as published,
 * hourly or daily. Two shapes are read:
 * - the current files (`data.meteostat.net/{hourly|daily}/{year}/{station}.csv.gz`): a header of
 *   parameter codes (`year,month,day[,hour],temp,temp_source,…`), each value with a `_source` column;
 * - the older headerless files (`bulk.meteostat.net/v2/{hourly|daily}/{station}.csv.gz`): hourly
 *   `date,hour,temp,dwpt,rhum,prcp,snow,wdir,wspd,wpgt,pres,tsun,coco`, daily
 *   `date,tavg,tmin,tmax,prcp,snow,wdir,wspd,wpgt,pres,tsun`.
 * Units are metric except wind (km/h, converted to m/s) and sunshine (minutes; a day's in hours).
 * An empty field is missing. Meteostat fills gaps with model data: a value whose source names a
 * model or forecast is not an observation and is dropped, counted. Hourly times are UTC (converted
 * into the dataset's zone by the build); a reading at hour H is the hour ending at H. Positions and
 * names come from Meteostat's station list (`stations/lite.json.gz` or `full.json.gz`).
 */
import { inflate, isGzip, readInputBytes } from './input-bytes.ts';
import { basename } from 'node:path';
import { BuildError } from '../build-error.ts';
import { splitFields } from './csv-fields.ts';
import type { Imported, ImportedStation, ImportScale } from './imported.ts';

const kmh = (v: number) => Number((v / 3.6).toFixed(1));
const same = (v: number) => v;

/** Meteostat's parameter codes the contract has a type for, per scale, with the conversion into its unit. */
export const METEOSTAT_PARAMETERS: Readonly<
  Record<ImportScale, Readonly<Record<string, { type: string; convert: (v: number) => number }>>>
> = {
  hourly: {
    temp: { type: 'temperature_mean', convert: same },
    dwpt: { type: 'dew_point', convert: same },
    rhum: { type: 'humidity', convert: same },
    prcp: { type: 'rain', convert: same },
    wdir: { type: 'wind_direction', convert: same },
    wspd: { type: 'wind_speed', convert: kmh },
    wpgt: { type: 'wind_speed_max', convert: kmh },
    tsun: { type: 'sunshine_duration', convert: same },
  },
  daily: {
    tavg: { type: 'temperature_mean', convert: same },
    temp: { type: 'temperature_mean', convert: same },
    tmin: { type: 'temperature_min', convert: same },
    tmax: { type: 'temperature_max', convert: same },
    rhum: { type: 'humidity_mean', convert: same },
    prcp: { type: 'rain_sum', convert: same },
    wdir: { type: 'wind_direction_mean', convert: same },
    wspd: { type: 'wind_speed_mean', convert: kmh },
    wpgt: { type: 'wind_speed_max', convert: kmh },
    tsun: { type: 'sunshine_duration_sum', convert: (m) => Number((m / 60).toFixed(2)) },
  },
};

/** The older headerless files' columns. */
const LEGACY: Record<ImportScale, string[]> = {
  hourly: ['date', 'hour', 'temp', 'dwpt', 'rhum', 'prcp', 'snow', 'wdir', 'wspd', 'wpgt', 'pres', 'tsun', 'coco'],
  daily: ['date', 'tavg', 'tmin', 'tmax', 'prcp', 'snow', 'wdir', 'wspd', 'wpgt', 'pres', 'tsun'],
};

/** A source that is not an observation: Meteostat's gap-filling model and forecast data. */
const MODEL_SOURCE = /model|mosmix|forecast/i;

/** Reads Meteostat's station list (a JSON array, gzipped or not): id → station. */
export function parseMeteostatStations(bytes: Buffer, file: string): Map<string, ImportedStation> {
  const raw = isGzip(bytes) ? inflate(bytes, file) : bytes;
  let list: unknown;
  try {
    list = JSON.parse(raw.toString('utf8'));
  } catch {
    list = null;
  }
  if (!Array.isArray(list))
    throw new BuildError('invalid_input', `${file} is not Meteostat's station list (a JSON array of stations).`, {
      file,
    });
  const out = new Map<string, ImportedStation>();
  for (const s of list as Array<Record<string, unknown>>) {
    const loc = (s?.location ?? {}) as { latitude?: unknown; longitude?: unknown; elevation?: unknown };
    const name = s?.name as Record<string, unknown> | string | undefined;
    if (typeof s?.id !== 'string' || typeof loc.latitude !== 'number' || typeof loc.longitude !== 'number') continue;
    out.set(s.id, {
      station_id: s.id,
      name: typeof name === 'string' ? name : String(name?.en ?? Object.values(name ?? {})[0] ?? s.id),
      lat: loc.latitude,
      lon: loc.longitude,
      elevation: typeof loc.elevation === 'number' ? loc.elevation : null,
    });
  }
  return out;
}

/** The station a file holds: its name without `.csv` / `.csv.gz` (Meteostat ids are text: `68816`, `D1424`). */
export function meteostatStationOfFile(path: string): string | null {
  return /^([A-Za-z0-9]{1,12})\.csv(\.gz)?$/.exec(basename(path))?.[1] ?? null;
}

/** Reads one Meteostat file (hourly or daily, either shape) into `into`. */
export async function readMeteostatFile(
  path: string,
  stations: ReadonlyMap<string, ImportedStation>,
  into: Imported,
): Promise<void> {
  const name = basename(path);
  const bad = (why: string, row?: number) =>
    new BuildError('invalid_input', `${name}${row ? ` line ${row}` : ''}: ${why}`, {
      file: path,
      ...(row ? { row } : {}),
    });
  const id = meteostatStationOfFile(path);
  if (!id) throw bad('is not named as Meteostat names its files (<station>.csv.gz): the name is the station.');
  const station = stations.get(id);
  if (!station)
    throw bad(`is station ${id}, which the station list does not hold: pass Meteostat's lite.json.gz that lists it.`);
  into.stations.set(id, station);
  const bytes = await readInputBytes(path);
  const lines = bytes.toString('utf8').split(/\r?\n/);
  const first = splitFields(lines[0] ?? '') ?? [];
  const headed = first.some((f) => /[a-z]/i.test(f) && !/^\d{4}-\d{2}-\d{2}$/.test(f));
  let columns: string[];
  let scale: ImportScale;
  if (headed) {
    columns = first.map((h) => h.trim().toLowerCase());
    scale = columns.includes('hour') ? 'hourly' : 'daily';
    for (const need of ['year', 'month', 'day'])
      if (!columns.includes(need)) throw bad(`its header has no ${need} column: is it a Meteostat bulk file?`, 1);
  } else {
    scale = first.length === LEGACY.hourly.length ? 'hourly' : 'daily';
    columns = LEGACY[scale];
    if (first.length !== columns.length)
      throw bad(
        `has ${first.length} columns and no header; Meteostat's older files have ${LEGACY.hourly.length} (hourly) or ${LEGACY.daily.length} (daily).`,
        1,
      );
  }
  const at = new Map(columns.map((c, i) => [c, i]));
  const params = METEOSTAT_PARAMETERS[scale];
  const timeColumns = new Set(['year', 'month', 'day', 'hour', 'date']);
  let rows = 0;
  for (let i = headed ? 1 : 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    const f = splitFields(line);
    if (!f || f.length !== columns.length)
      throw bad(`has ${f?.length ?? 0} fields where the header has ${columns.length}.`, i + 1);
    const field = (c: string) => f[at.get(c)!]?.trim() ?? '';
    let ymd: [number, number, number];
    if (at.has('date')) {
      const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(field('date'));
      if (!m) throw bad(`its date ${JSON.stringify(field('date'))} is not yyyy-mm-dd.`, i + 1);
      ymd = [Number(m[1]), Number(m[2]), Number(m[3])];
    } else ymd = [Number(field('year')), Number(field('month')), Number(field('day'))];
    const hour = scale === 'hourly' ? Number(field('hour')) : 0;
    const [y, mo, d] = ymd;
    if (
      !(Number.isInteger(y) && Number.isInteger(mo) && Number.isInteger(d) && Number.isInteger(hour)) ||
      !(mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && hour >= 0 && hour <= 23) ||
      new Date(Date.UTC(y, mo - 1, d)).getUTCDate() !== d
    )
      throw bad(`its date and hour (${ymd.join('-')} ${hour}) are not a real time.`, i + 1);
    rows++;
    const day = `${String(y).padStart(4, '0')}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
    const time = scale === 'hourly' ? `${day}T${String(hour).padStart(2, '0')}:00:00Z` : day;
    for (const c of columns) {
      if (timeColumns.has(c) || c.endsWith('_source')) continue;
      const raw = field(c);
      const spec = params[c];
      if (!spec) {
        if (raw !== '') into.skip(c);
        continue;
      }
      if (raw === '') {
        into.drop(id, spec.type, 'empty');
        continue;
      }
      const v = Number(raw);
      if (!Number.isFinite(v)) throw bad(`its ${c} ${JSON.stringify(raw)} is not a number.`, i + 1);
      const source = at.has(`${c}_source`) ? field(`${c}_source`) : '';
      if (MODEL_SOURCE.test(source)) {
        into.drop(id, spec.type, `model data (${source})`);
        continue;
      }
      const value = spec.convert(v);
      into.keepAt(scale, id, time, spec.type, value);
      // The hour's one reading is its lowest and highest too (as for ISD-Lite), so a day's extremes
      // are its lowest and highest reading.
      if (scale === 'hourly' && spec.type === 'temperature_mean') {
        into.put('hourly', id, time, 'temperature_min', value);
        into.put('hourly', id, time, 'temperature_max', value);
      }
    }
  }
  into.files.push({
    path,
    rows,
    // The older files name no value's source: model values in them cannot be told from observations.
    ...(headed
      ? {}
      : {
          note: "an older Meteostat file (no header): it does not say each value's source, so any gap-filling model values in it cannot be told from observations and were imported as given. The current files (data.meteostat.net) say each value's source.",
        }),
  });
}
