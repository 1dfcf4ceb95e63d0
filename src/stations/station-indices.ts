/**
 * /api/station-indices/ (an extension, docs/indices.md): chill and heat
 * indices from station temperatures. A point takes the nearest station with
 * temperatures in the window, chosen as nearest-station chooses: measured
 * hours (`temperature_mean`, hourly) or, when a station with only daily
 * minimum and maximum is nearer, hours reconstructed from those. A polygon
 * takes every station inside and averages each index over those with a
 * value, in station-id order as poly-aggregate does.
 */
import { throwIfAborted } from '../contract/errors.ts';
import { periodKey } from '../contract/periods.ts';
import { containsPoint } from './point-in-polygon.ts';
import {
  indexPeriods,
  seasonLabel,
  STATION_INDICES,
  type IndexAnswer,
  type IndexPeriod,
  type IndexStationMetadata,
  type StationIndicesQuery,
  type StationIndicesResponse,
} from '../contract/station-indices.ts';
import { abortable } from '../io/abortable.ts';
import { computeIndex } from '../indices/compute-indices.ts';
import { measuredSeries, reconstructedSeries, type HourSeries } from '../indices/hour-series.ts';
import { chooseStations, rankStations, type NearestChoice, type StationNeed } from './nearest-station.ts';
import type { StationArchive } from './station-archive.ts';
import { spansRange, type IndexedStation } from './station-index.ts';

/** The hourly temperature column, and the daily extremes hours are reconstructed from. */
const HOURLY_TYPES = ['temperature_mean'];
const DAILY_TYPES = ['temperature_min', 'temperature_max'];

/** Days read beyond each end of the window, so a gap at its edge fills from the hours beside it. */
function marginDays(q: StationIndicesQuery): number {
  return Math.ceil(q.maxGapHours / 24);
}

/** What a station needs to be chosen, per source, for the window with its margins. */
function needs(q: StationIndicesQuery): { hourly: StationNeed; daily: StationNeed } {
  const a = q.firstDay - marginDays(q);
  const b = q.lastDay + marginDays(q);
  return {
    hourly: {
      timeScale: 'hourly',
      dataTypes: HOURLY_TYPES,
      first: periodKey('hourly', a * 24),
      last: periodKey('hourly', b * 24 + 23),
      start: q.firstDay * 24,
      end: q.lastDay * 24 + 23,
    },
    daily: {
      timeScale: 'daily',
      dataTypes: DAILY_TYPES,
      first: periodKey('daily', a),
      last: periodKey('daily', b),
      start: q.firstDay,
      end: q.lastDay,
    },
  };
}

/** A station's series over the window and its margins, from the source given; null when it has no temperature there. */
async function readSeries(
  q: StationIndicesQuery,
  archive: StationArchive,
  station: IndexedStation,
  source: 'hourly' | 'daily',
  signal?: AbortSignal,
): Promise<HourSeries | null> {
  const n = needs(q)[source];
  const firstDay = q.firstDay - marginDays(q);
  const days = q.lastDay + marginDays(q) - firstDay + 1;
  const rows = await archive.rows(station, source, n.dataTypes, n.first, n.last, signal);
  let known = 0;
  // Columns in the order of n.dataTypes; ordinals are hours or days since 1970-01-01.
  const column = (type: string) => rows.values[n.dataTypes.indexOf(type)]!;
  if (source === 'hourly') {
    const values = new Float64Array(days * 24).fill(NaN);
    const temperature = column('temperature_mean');
    rows.at.forEach((hour, i) => {
      const t = temperature[i]!;
      if (Number.isNaN(t)) return;
      values[hour - firstDay * 24] = t;
      known++;
    });
    return known ? measuredSeries(firstDay, values, q.maxGapHours) : null;
  }
  const tmin = new Float64Array(days).fill(NaN);
  const tmax = new Float64Array(days).fill(NaN);
  const [lows, highs] = [column('temperature_min'), column('temperature_max')];
  rows.at.forEach((day, i) => {
    const d = day - firstDay;
    if (!Number.isNaN(lows[i]!)) tmin[d] = lows[i]!;
    if (!Number.isNaN(highs[i]!)) tmax[d] = highs[i]!;
    if (!Number.isNaN(tmin[d]!) && !Number.isNaN(tmax[d]!)) known++;
  });
  return known ? reconstructedSeries(firstDay, tmin, tmax, station.lat, Math.floor(q.maxGapHours / 24)) : null;
}

/** Every asked index over each of its periods, from one station's series (null: no temperature, every value null). */
function answerOf(q: StationIndicesQuery, series: HourSeries | null): Record<string, IndexAnswer> {
  const empty: HourSeries = {
    source: 'hourly',
    firstDay: q.firstDay,
    values: new Float64Array((q.lastDay - q.firstDay + 1) * 24).fill(NaN),
    filled: new Uint8Array((q.lastDay - q.firstDay + 1) * 24),
  };
  const s = series ?? empty;
  const out: Record<string, IndexAnswer> = {};
  for (const name of q.indices) {
    const { unit, family } = STATION_INDICES[name];
    const periods: Record<string, IndexPeriod> = {};
    for (const [a, b] of indexPeriods(q, q.seasons[family]))
      periods[seasonLabel([a, b])] = computeIndex(name, s, a, b, q);
    out[name] = { unit, periods };
  }
  return out;
}

/** Answers a validated station-indices query from the archive. */
export async function stationIndices(
  q: StationIndicesQuery,
  archive: StationArchive,
  signal?: AbortSignal,
): Promise<StationIndicesResponse> {
  // Hourly values, else daily extremes: the only scales these indices read.
  const stations = await archive.stations(signal, ['hourly', 'daily']);
  const g = q.geometries[0];
  return g?.kind === 'polygon'
    ? polygonIndices(q, archive, stations, signal)
    : pointIndices(q, archive, stations, signal);
}

async function pointIndices(
  q: StationIndicesQuery,
  archive: StationArchive,
  stations: IndexedStation[],
  signal?: AbortSignal,
): Promise<StationIndicesResponse> {
  const byId = new Map(stations.map((s) => [s.id, s]));
  const ranked = q.geometries.map((g) => (g.kind === 'point' ? rankStations(stations, g.position) : null));
  const n = needs(q);
  const hourly = await chooseStations(n.hourly, ranked, archive, byId, signal);
  // Daily extremes are looked at only for points whose hourly choice is not the nearest station.
  const needDaily = ranked.map((r, i) => (hourly.choices[i]?.hasData && hourly.choices[i]!.actualNearest ? null : r));
  const daily = needDaily.some((r) => r)
    ? await chooseStations(n.daily, needDaily, archive, byId, signal)
    : { choices: needDaily.map(() => null), ids: [] };
  const picks = q.geometries.map((_, i): { choice: NearestChoice; source: 'hourly' | 'daily' | null } | null => {
    const h = hourly.choices[i];
    const d = daily.choices[i];
    if (h?.hasData && (!d?.hasData || h.distanceM <= d.distanceM)) return { choice: h, source: 'hourly' };
    if (d?.hasData) return { choice: d, source: 'daily' };
    return h ? { choice: h, source: null } : null;
  });
  const reads = new Map<string, Promise<HourSeries | null>>();
  for (const p of picks) {
    if (!p?.source) continue;
    const key = `${p.source}:${p.choice.station.id}`;
    if (!reads.has(key)) reads.set(key, readSeries(q, archive, p.choice.station, p.source, signal));
  }
  const series = new Map(await abortable(Promise.all([...reads].map(async ([k, r]) => [k, await r] as const)), signal));
  throwIfAborted(signal);
  const out: Record<string, { metadata: IndexStationMetadata; indices: Record<string, IndexAnswer> }> = {};
  q.geometries.forEach((g, i) => {
    const p = picks[i];
    if (!p) return;
    const s = p.source ? (series.get(`${p.source}:${p.choice.station.id}`) ?? null) : null;
    out[g.key] = {
      metadata: {
        station_lat: p.choice.station.lat,
        station_lon: p.choice.station.lon,
        station_elevation: p.choice.station.elevation,
        // Millimetres, as nearest-station answers them.
        distance_from_point_m: Math.round(p.choice.distanceM * 1000) / 1000,
        actual_nearest: p.choice.actualNearest,
        hours_from: s ? s.source : null,
      },
      indices: answerOf(q, s),
    };
  });
  return out;
}

async function polygonIndices(
  q: StationIndicesQuery,
  archive: StationArchive,
  stations: IndexedStation[],
  signal?: AbortSignal,
): Promise<StationIndicesResponse> {
  const g = q.geometries[0]!;
  const n = needs(q);
  const inside = stations
    .filter(
      (s) =>
        g.kind === 'polygon' &&
        containsPoint(g.polygons, [s.lon, s.lat]) &&
        (spansRange(s, 'hourly', n.hourly.first, n.hourly.last) || spansRange(s, 'daily', n.daily.first, n.daily.last)),
    )
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  // Measured hours where the station has them in the window, else its daily extremes.
  const read = await abortable(
    Promise.all(
      inside.map(async (s) => {
        const h = spansRange(s, 'hourly', n.hourly.first, n.hourly.last)
          ? await readSeries(q, archive, s, 'hourly', signal)
          : null;
        return [
          s,
          h ??
            (spansRange(s, 'daily', n.daily.first, n.daily.last)
              ? await readSeries(q, archive, s, 'daily', signal)
              : null),
        ] as const;
      }),
    ),
    signal,
  );
  throwIfAborted(signal);
  const contributing = read.filter((r): r is readonly [IndexedStation, HourSeries] => r[1] !== null);
  const answers = contributing.map(([, s]) => answerOf(q, s));
  const stations_metadata: Record<
    string,
    { station_lat: number; station_lon: number; station_elevation: number | null; hours_from: 'hourly' | 'daily' }
  > = {};
  contributing.forEach(([s, series], i) => {
    stations_metadata[String(i)] = {
      station_lat: s.lat,
      station_lon: s.lon,
      station_elevation: s.elevation,
      hours_from: series.source,
    };
  });
  const indices: Record<string, IndexAnswer> = {};
  for (const [name, { unit }] of q.indices.map((n) => [n, STATION_INDICES[n]] as const)) {
    const template = answerOf({ ...q, indices: [name] }, null)[name]!;
    const periods: Record<string, IndexPeriod> = {};
    for (const label of Object.keys(template.periods))
      periods[label] = meanOf(
        answers.map((a) => a[name]!.periods[label]!),
        template.periods[label]!,
      );
    indices[name] = { unit, periods };
  }
  return { stations_metadata, indices };
}

/** The mean over the stations with a value (summed in station-id order, divided once), with their count and summed hours. */
function meanOf(parts: IndexPeriod[], empty: IndexPeriod): IndexPeriod {
  const withValue = parts.filter((p) => p.value !== null);
  const sum = (f: (p: IndexPeriod) => number) => parts.reduce((a, p) => a + f(p), 0);
  const out: IndexPeriod = {
    value: withValue.length
      ? Math.round((withValue.reduce((a, p) => a + p.value!, 0) / withValue.length) * 1e4) / 1e4
      : null,
    hours_expected: parts.length ? sum((p) => p.hours_expected) : empty.hours_expected,
    hours_used: sum((p) => p.hours_used),
    hours_missing: parts.length ? sum((p) => p.hours_missing) : empty.hours_missing,
    hours_filled: sum((p) => p.hours_filled),
    station_count: withValue.length,
  };
  if (out.value === null)
    out.reason = parts.length
      ? 'No station inside the polygon has enough hours in this period.'
      : 'No station inside the polygon has temperatures in the window.';
  if (empty.months) {
    out.months = {};
    for (const m of Object.keys(empty.months)) {
      const vs = parts.map((p) => p.months?.[m]).filter((v): v is number => typeof v === 'number');
      out.months[m] = vs.length ? Math.round((vs.reduce((a, b) => a + b, 0) / vs.length) * 1e4) / 1e4 : null;
    }
  }
  return out;
}
