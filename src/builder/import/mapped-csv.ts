/**
 * An export read by its mapping (mapping.ts): a logger's or a network's CSV with its own headers,
 * separator, decimal mark, missing markers, date format and clock. Times are turned into UTC
 * instants by the mapping's zone and written with it, so the build converts them into the
 * dataset's; a reading at another minute belongs to the hour it ends in (10:10 → 11:00, the
 * project's hourly convention, docs/data.md), and several readings of one hour become one value by
 * the type's rule: a sum for amounts (rain, evaporation, sunshine), the largest for `*_max`, the
 * smallest for `*_min`, the direction of the mean wind vector for directions, else the mean. How
 * many readings made each hour is counted in the report.
 */
import { basename } from 'node:path';
import { BuildError } from '../build-error.ts';
import { isWorkbook, readExportTable } from './export-table.ts';
import type { Imported } from './imported.ts';
import { type Mapping, type parseMapping, timeParser, UNITS, unitOfType } from './mapping.ts';

type Resolved = ReturnType<typeof parseMapping>;

function zoneMinutes(zone: string): number {
  if (zone === 'UTC' || zone === 'Z') return 0;
  const m = /^([+-])(\d{2}):(\d{2})$/.exec(zone)!;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

/** How several readings of one hour become its value, by the type's name. */
export function combine(type: string, values: number[]): number {
  if (/^(rain|evaporation|sunshine_duration)/.test(type)) return values.reduce((a, b) => a + b, 0);
  // A loop, not Math.max(...values): an hour may hold more readings than a call takes arguments.
  if (/_max$/.test(type)) return values.reduce((a, b) => (b > a ? b : a), -Infinity);
  if (/_min$/.test(type)) return values.reduce((a, b) => (b < a ? b : a), Infinity);
  if (/^wind_direction/.test(type)) {
    const rad = Math.PI / 180;
    const x = values.reduce((a, d) => a + Math.sin(d * rad), 0);
    const y = values.reduce((a, d) => a + Math.cos(d * rad), 0);
    return Math.round(((Math.atan2(x, y) / rad + 360) % 360) * 10) / 10;
  }
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/** Rounds away binary noise of a conversion or a mean (9 significant decimals of the value). */
function clean(v: number): number {
  return Number(v.toFixed(6));
}

/** Reads `files` by `mapping` into `into`; readings per hour are counted in `readings` (station → count → hours). */
export async function readMappedCsv(
  files: readonly string[],
  mapping: Resolved,
  into: Imported,
  readings: Map<string, Map<number, number>>,
): Promise<void> {
  const parse = timeParser(mapping.time.format);
  const numberOf = (text: string) =>
    /\d/.test(text) ? Number(mapping.decimal === '.' ? text : text.replace(mapping.decimal, '.')) : Number.NaN;
  // A numeric marker means its number however it is written: -999 is -999.0 and -999,00 too.
  const missingNumbers = new Set(mapping.missing.map(numberOf).filter(Number.isFinite));
  const isMissing = (text: string) => mapping.missing.includes(text) || missingNumbers.has(numberOf(text));
  const offset = zoneMinutes(mapping.zone);
  const byStation = 'column' in mapping.station ? null : mapping.station;
  // Station → time → type → the readings that fall there.
  const pending = new Map<string, Map<string, Map<string, number[]>>>();
  for (const path of files) {
    const name = basename(path);
    const table = await readExportTable(path, mapping);
    const header = table.header;
    const col = (h: string) => {
      const k = header.indexOf(h);
      if (k < 0)
        throw new BuildError(
          'invalid_input',
          `${name} has no column ${JSON.stringify(h)} that the mapping names; its columns: ${header.map((x) => JSON.stringify(x)).join(', ')}.`,
          { file: path, row: 1, column: h },
        );
      return k;
    };
    const timeCol = col(mapping.time.column);
    const stationCol = byStation ? -1 : col((mapping.station as { column: string }).column);
    const mapped = Object.entries(mapping.columns).map(([h, c]) => ({ at: col(h), header: h, ...c }));
    // Columns the mapping leaves out: named in the report with the values they held.
    const unmapped = header
      .map((h, k) => ({ h, k }))
      .filter(({ h, k }) => k !== timeCol && k !== stationCol && !(h in mapping.columns));
    let rows = 0;
    for (const { line, cells } of table.rows) {
      // A spreadsheet's date cell is its clock already; every other cell is text, as a CSV's.
      const f = cells.map((c) => (typeof c === 'string' ? c : ''));
      const fail = (column: string, why: string) =>
        new BuildError(
          'invalid_input',
          `${name} ${isWorkbook(path) ? 'row' : 'line'} ${line}, column ${JSON.stringify(column)}: ${why}`,
          {
            file: path,
            row: line,
            column,
          },
        );
      const cell = cells[timeCol];
      const raw = typeof cell === 'string' ? cell.trim() : cell === undefined ? '' : cell.join(' ');
      const t: readonly [number, number, number, number, number, number] | null =
        typeof cell === 'object' ? cell : parse(raw);
      if (!t)
        throw fail(
          mapping.time.column,
          `${JSON.stringify(raw)} is not a time of the format ${JSON.stringify(mapping.time.format)}.`,
        );
      const [y, mo, d, h, mi, s] = t;
      const local = Date.UTC(y, mo - 1, d, h, mi, s);
      const check = new Date(Date.UTC(y, mo - 1, d));
      if (check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23 || mi > 59 || s > 59)
        throw fail(mapping.time.column, `${JSON.stringify(raw)} names no time.`);
      const station = byStation ? byStation.id : (f[stationCol] ?? '').trim();
      if (!byStation) {
        const listed = (mapping.station as { stations: Record<string, unknown> }).stations;
        // Own keys only: a station named "constructor" is not in every list.
        if (!Object.hasOwn(listed, station))
          throw fail(
            header[stationCol]!,
            `station ${JSON.stringify(station)} is not in the mapping's "station.stations".`,
          );
      }
      let key: string;
      if (mapping.scale === 'hourly') {
        const utc = local - offset * 60_000;
        // The hour a reading ends in: on the hour, that hour; else the next.
        const hour = Math.ceil(utc / 3_600_000) * 3_600_000;
        key = `${new Date(hour).toISOString().slice(0, 19)}Z`;
      } else {
        key = `${String(y).padStart(4, '0')}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
      }
      rows++;
      for (const { h, k } of unmapped) if (!isMissing((f[k] ?? '').trim())) into.skip(h);
      for (const c of mapped) {
        const text = (f[c.at] ?? '').trim();
        const counts = into.countsOf(station, c.type);
        if (isMissing(text)) {
          into.drop(station, c.type, `missing marker ${JSON.stringify(text)}`);
          continue;
        }
        const n = numberOf(text);
        if (!/\d/.test(text) || !Number.isFinite(n))
          throw fail(
            c.header,
            `${JSON.stringify(text)} is not a number${mapping.decimal === ',' ? ' (decimal comma)' : ''} nor one of the missing markers ${JSON.stringify(mapping.missing)}.`,
          );
        counts.read++;
        counts.kept++;
        const v = UNITS[c.unit ?? unitOfType(c.type)]!.convert(n);
        let times = pending.get(station);
        if (!times) pending.set(station, (times = new Map()));
        let types = times.get(key);
        if (!types) times.set(key, (types = new Map()));
        const list = types.get(c.type);
        if (list) {
          if (mapping.scale === 'daily')
            throw fail(mapping.time.column, `a second row for ${station} on ${key}; a daily export has one row a day.`);
          list.push(v);
        } else types.set(c.type, [v]);
      }
    }
    into.files.push({ path, rows });
  }
  for (const [station, times] of pending) {
    const per = readings.get(station) ?? new Map<number, number>();
    readings.set(station, per);
    for (const [time, types] of times) {
      let most = 0;
      for (const [type, values] of types) {
        into.put(mapping.scale, station, time, type, clean(combine(type, values)));
        most = Math.max(most, values.length);
      }
      per.set(most, (per.get(most) ?? 0) + 1);
    }
  }
  for (const [id, s] of Object.entries(
    byStation
      ? { [byStation.id]: byStation }
      : (
          mapping.station as {
            stations: Record<string, { name?: string; lat: number; lon: number; elevation?: number | null }>;
          }
        ).stations,
  )) {
    into.stations.set(id, {
      station_id: id,
      name: s.name ?? id,
      lat: s.lat,
      lon: s.lon,
      elevation: s.elevation ?? null,
    });
  }
}

export type { Mapping };
