/**
 * /api/nearest-station/: for each point, the geodesically nearest station
 * that has at least one value of a requested type in the range, and its
 * values for every period. Planning is pure and works on what is known so
 * far: the index says which stations span the range at all; the coverage
 * detail (gaps), fetched only for the few candidates a plan asks for,
 * says which of those really have data.
 */
import { distanceLowerBoundM, distanceM } from '../contract/geodesic.ts';
import type { NearestStationResponse, PeriodValues, StationQuery } from '../contract/types.ts';
import type { StationCoverage } from '../dataset/catalog.ts';
import { throwIfAborted } from '../contract/errors.ts';
import { abortable } from '../io/abortable.ts';
import type { StationArchive } from './station-archive.ts';
import { hasAnyValue, rowIndexByPeriod, valuesByPeriod, type StationRows } from './station-rows.ts';
import { PeriodTable } from '../contract/period-table.ts';
import { dataIn, spansRange, type IndexedStation } from './station-index.ts';

/** The station chosen for one point. */
export interface NearestChoice {
  station: IndexedStation;
  distanceM: number;
  actualNearest: boolean;
  /** Whether the station has data in the range (false only when no station has). */
  hasData: boolean;
}

/**
 * Candidates per point whose coverage is fetched in one round. One: the
 * lines of a point's next candidates lie far apart in the file (it is in id
 * order), so each is its own request, and the nearest station usually has
 * data. Measured on the scale bench (seed, 10 points, 6 connections at 40
 * ms): 2 per point sent 20 requests for 10 answers; 1 sends 10.
 */
export const COVERAGE_BATCH = 1;

/** A station and its geodesic distance (metres) from the point ranked. */
export interface RankedStation {
  station: IndexedStation;
  d: number;
}

const byDistanceThenId = (a: RankedStation, b: RankedStation) =>
  a.d - b.d || (a.station.id < b.station.id ? -1 : a.station.id > b.station.id ? 1 : 0);

/**
 * Stations ranked by geodesic distance from a point, ties by station id,
 * measured lazily: `at(i)` computes exact geodesics only for the stations
 * that could rank at i or before, taken in the order of a cheap lower bound
 * ({@link distanceLowerBoundM}). A point's answer usually needs the first
 * one or two of 600–2,000 stations; ranking them all by geodesic cost
 * 70 ms of a cold 10-point query on 600 stations.
 */
export class StationRanking {
  private readonly order: Array<{ station: IndexedStation; low: number }>;
  private next = 0;
  /** Measured but not placed yet, sorted by distance then id. */
  private readonly pool: RankedStation[] = [];
  private readonly placed: RankedStation[] = [];

  constructor(
    stations: readonly IndexedStation[],
    private readonly point: readonly [number, number],
  ) {
    this.order = stations
      .map((station) => ({ station, low: distanceLowerBoundM([point[0], point[1]], [station.lon, station.lat]) }))
      .sort((a, b) => a.low - b.low);
  }

  /** The station of rank `i` (0 = nearest); undefined past the last. */
  at(i: number): RankedStation | undefined {
    while (this.placed.length <= i && this.placeNext());
    return this.placed[i];
  }

  private placeNext(): boolean {
    // Every unmeasured station is at least its lower bound away: once that exceeds the best
    // measured distance, the best is placed (strictly nearer than all unmeasured: no tie missed).
    for (
      let c = this.order[this.next];
      c && (this.pool.length === 0 || c.low <= this.pool[0]!.d);
      c = this.order[++this.next]
    ) {
      const r = { station: c.station, d: distanceM([this.point[0], this.point[1]], [c.station.lon, c.station.lat]) };
      let at = this.pool.length;
      while (at > 0 && byDistanceThenId(this.pool[at - 1]!, r) > 0) at--;
      this.pool.splice(at, 0, r);
    }
    const best = this.pool.shift();
    if (!best) return false;
    this.placed.push(best);
    return true;
  }
}

/** Stations ranked by geodesic distance from `point`, ties by station id (lazily: {@link StationRanking}). */
export function rankStations(stations: readonly IndexedStation[], point: [number, number]): StationRanking {
  return new StationRanking(stations, point);
}

/** What a station must hold to be chosen: values of one of `dataTypes` at `timeScale` between two periods (keys and ordinals, inclusive). */
export interface StationNeed {
  timeScale: StationQuery['timeScale'];
  dataTypes: readonly string[];
  first: string;
  last: string;
  start: number;
  end: number;
}

/** The need of a station query: its types over its whole range. */
export function needOf(q: StationQuery): StationNeed {
  return {
    timeScale: q.timeScale,
    dataTypes: q.dataTypes,
    first: q.range.keys[0]!,
    last: q.range.keys[q.range.keys.length - 1]!,
    start: q.range.start,
    end: q.range.end,
  };
}

/**
 * Picks the station for a point from its ranking. The first with data wins;
 * `actualNearest` is false only when a strictly closer station was passed
 * over. When no station has data, the nearest one is returned (its values
 * will all be null). Returns the ids whose coverage must be known first
 * when the answer depends on coverage not in `coverage` yet.
 */
export function chooseStation(
  ranked: StationRanking,
  q: StationNeed,
  coverage: ReadonlyMap<string, StationCoverage>,
): NearestChoice | { need: string[] } | null {
  const { first, last } = q;
  const nearest = ranked.at(0);
  if (!nearest) return null;
  for (let i = 0, r: RankedStation | undefined = nearest; r; r = ranked.at(++i)) {
    if (!spansRange(r.station, q.timeScale, first, last)) continue;
    const cov = coverage.get(r.station.id);
    const says = cov ? dataIn(cov, q.dataTypes, q.start, q.end) : undefined;
    // Unknown, or a line whose merged gaps leave this range open (chooseStations settles it from the rows).
    if (says === undefined || says === 'maybe') {
      // Ask for this one and the next few that span the range.
      const need = [r.station.id];
      for (let j = i + 1; need.length < COVERAGE_BATCH && ranked.at(j); j++) {
        const s = ranked.at(j)!.station;
        if (spansRange(s, q.timeScale, first, last) && !coverage.has(s.id)) need.push(s.id);
      }
      return { need };
    }
    if (says === 'yes') return { station: r.station, distanceM: r.d, actualNearest: r.d <= nearest.d, hasData: true };
  }
  return { station: nearest.station, distanceM: nearest.d, actualNearest: true, hasData: false };
}

/** The plan of a query: each point's choice, or the coverage still needed to choose. */
export type NearestPlan = { choices: Array<NearestChoice | null>; ids: string[]; need: [] } | { need: string[] };

/** The chosen station of each point and the ids of those with data to read (each once), or the coverage still needed. */
export function planNearest(
  q: StationNeed,
  ranked: ReadonlyArray<StationRanking | null>,
  coverage: ReadonlyMap<string, StationCoverage>,
): NearestPlan {
  const choices: Array<NearestChoice | null> = [];
  const need = new Set<string>();
  for (const r of ranked) {
    const c = r ? chooseStation(r, q, coverage) : null;
    if (c && 'need' in c) {
      c.need.forEach((id) => need.add(id));
      choices.push(null);
    } else choices.push(c);
  }
  if (need.size) return { need: [...need] };
  const ids = [...new Set(choices.filter((c): c is NearestChoice => c !== null && c.hasData).map((c) => c.station.id))];
  return { choices, ids, need: [] };
}

/** A point's period table: every period of the range, its station's values of `q.dataTypes` (in order), NaN where no row. */
export function nearestTable(q: StationQuery, rows: StationRows | undefined): PeriodTable {
  const { keys, start } = q.range;
  const rowAt = rows ? rowIndexByPeriod(rows, start, keys.length) : null;
  const columns = q.dataTypes.map((_, t) =>
    rows && rowAt ? valuesByPeriod(rows.values[t]!, rowAt) : new Float64Array(keys.length).fill(NaN),
  );
  return new PeriodTable(keys, q.dataTypes, columns);
}

/**
 * The contract's answer from the choices and the rows read (columns of exactly `q.dataTypes`, in
 * order, as {@link StationRows} hold them): every period of the range, nulls where no row. With
 * `tables`, each point's `data` stays a {@link PeriodTable} (columns) for a transport that sends
 * columns; the engine makes the objects otherwise (CallOptions.periodTables). `made`: points'
 * tables already made from the same rows (by geometry index), used as they are.
 */
export function assembleNearest(
  q: StationQuery,
  choices: ReadonlyArray<NearestChoice | null>,
  byStation: ReadonlyMap<string, StationRows>,
  tables = false,
  made?: ReadonlyMap<number, PeriodTable>,
): NearestStationResponse {
  const out: NearestStationResponse = {};
  q.geometries.forEach((g, i) => {
    const choice = choices[i];
    if (!choice) return;
    const table = made?.get(i) ?? nearestTable(q, byStation.get(choice.station.id));
    // A stand-in for the objects until the engine makes them (or a transport sends the columns).
    const data = (tables ? table : table.rows()) as Record<string, PeriodValues>;
    out[g.key] = {
      metadata: {
        station_lat: choice.station.lat,
        station_lon: choice.station.lon,
        station_elevation: choice.station.elevation,
        // Millimetres: far below the data's precision, and identical in every JS engine
        // (the last bits of the trigonometry differ between V8 versions).
        distance_from_point_m: Math.round(choice.distanceM * 1000) / 1000,
        actual_nearest: choice.actualNearest,
      },
      data,
    };
  });
  return out;
}

/**
 * What a station's rows read for `need` say of its coverage, for {@link chooseStation}: the asked
 * types over the whole range when one of them has a value there, else nothing. Valid for this
 * need only (its types and range).
 */
export function coverageOfRows(rows: StationRows, need: StationNeed): StationCoverage {
  return hasAnyValue(rows) ? [{ types: [...need.dataTypes], runs: [[need.start, need.end]] }] : [];
}

/**
 * Each ranked point's station for `need` (null for an unranked geometry), learning only what the
 * plan asks about: a candidate's coverage line, or, where the link makes it worth it
 * (StationArchive.readsWhole), its file read whole, whose values tell the same and are the
 * answer's when it is chosen. The plan is made again as each answer arrives, so a point whose
 * candidate has no data asks for its next one at once, not after the slowest read of the round.
 * With `readChosen`, a candidate whose line shows data has its rows read at once: the plan asks
 * for one candidate per point, nearest first, so that one is the point's choice. Returns the
 * choices, the ids of the chosen stations with data, and their rows where already read or under way.
 */
export async function chooseStations(
  need: StationNeed,
  ranked: ReadonlyArray<StationRanking | null>,
  archive: StationArchive,
  byId: ReadonlyMap<string, IndexedStation>,
  signal?: AbortSignal,
  readChosen = false,
): Promise<{ choices: Array<NearestChoice | null>; ids: string[]; read: Map<string, Promise<StationRows>> }> {
  const coverage = new Map<string, StationCoverage>();
  /** Rows read (or under way) for `need`, by station id: the caller's read of a chosen station. */
  const read = new Map<string, Promise<StationRows>>();
  const { timeScale, dataTypes, first, last } = need;
  /** Reads under way, by station id; each settles (never rejects) once its answer is in `coverage`. */
  const pending = new Map<string, Promise<void>>();
  let failure: { err: unknown } | undefined;
  const track = (id: string, p: Promise<void>) =>
    pending.set(
      id,
      p.then(
        () => void pending.delete(id),
        (err: unknown) => {
          failure ??= { err };
          pending.delete(id);
        },
      ),
    );
  for (;;) {
    if (failure) throw failure.err;
    const plan = planNearest(need, ranked, coverage);
    if (plan.need.length === 0 && 'choices' in plan) return { ...plan, read };
    const asked = plan.need.filter((id) => !pending.has(id)).map((id) => byId.get(id)!);
    const whole = archive.readsWhole(asked, timeScale, dataTypes, first, last);
    const byLine = asked.filter((s) => !whole.has(s.id));
    // One call for all lines (near ones come in one range), then one per line to follow each.
    // The lines are asked first: a browser sends requests in the order they are made.
    if (byLine.length) void archive.coverage(byLine, timeScale, signal).catch(() => undefined);
    for (const s of byLine) {
      track(
        s.id,
        archive.coverage([s], timeScale, signal).then(async (m) => {
          const c = m.get(s.id) ?? [];
          const says = dataIn(c, dataTypes, need.start, need.end);
          if (says === 'maybe') {
            // The range is shorter than the gaps the line merged and lies inside a run: its rows tell,
            // and are the answer's if the station is chosen.
            const rows = archive.rows(s, timeScale, dataTypes, first, last, signal);
            read.set(s.id, rows);
            coverage.set(s.id, coverageOfRows(await rows, need));
            return;
          }
          coverage.set(s.id, c);
          if (readChosen && says === 'yes') {
            const rows = archive.rows(s, timeScale, dataTypes, first, last);
            // Awaited by the caller, which reads the chosen stations' rows; a failure shows there.
            rows.catch(() => undefined);
            read.set(s.id, rows);
          }
        }),
      );
    }
    for (const s of asked.filter((x) => whole.has(x.id))) {
      track(
        s.id,
        archive.rows(s, timeScale, dataTypes, first, last, signal, { whole: true }).then((rows) => {
          read.set(s.id, Promise.resolve(rows));
          coverage.set(s.id, coverageOfRows(rows, need));
        }),
      );
    }
    await abortable(Promise.race(pending.values()), signal);
  }
}

/**
 * Answers a validated nearest-station query from the archive (`tables`: see {@link assembleNearest}).
 * With `tables` and `early`, the table of each point whose station has data is made as soon as that
 * station's rows are read and handed to `early` (CallOptions.onPeriodTable); the answer holds those
 * same tables. Nothing is handed on once this call has settled: a read that ends after another
 * failed (the query fails, or the engine starts it over) makes no table.
 */
export async function nearestStation(
  q: StationQuery,
  archive: StationArchive,
  signal?: AbortSignal,
  tables = false,
  early?: (table: PeriodTable) => void,
): Promise<NearestStationResponse> {
  const stations = await archive.stations(signal, [q.timeScale]);
  const ranked = q.geometries.map((g) => (g.kind === 'point' ? rankStations(stations, g.position) : null));
  const byId = new Map(stations.map((s) => [s.id, s]));
  const need = needOf(q);
  const plan = await chooseStations(need, ranked, archive, byId, signal, true);
  const made = new Map<number, PeriodTable>();
  let settled = false;
  /** Each point that chose `id` gets its table now, handed on at once. */
  const makeTables = (id: string, rows: StationRows) => {
    if (!tables || !early || settled || signal?.aborted) return;
    plan.choices.forEach((c, i) => {
      if (c?.station.id !== id) return;
      const table = nearestTable(q, rows);
      made.set(i, table);
      early(table);
    });
  };
  try {
    // One abort listener for all reads (not one per station: browsers warn past ten on one signal).
    const read = await abortable(
      Promise.all(
        plan.ids.map(async (id) => {
          const rows = await (plan.read.get(id) ??
            archive.rows(byId.get(id)!, q.timeScale, q.dataTypes, need.first, need.last));
          makeTables(id, rows);
          return [id, rows] as const;
        }),
      ),
      signal,
    );
    throwIfAborted(signal);
    return assembleNearest(q, plan.choices, new Map(read), tables, made);
  } finally {
    settled = true;
  }
}
