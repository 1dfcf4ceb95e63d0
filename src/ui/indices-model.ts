/**
 * "Chill and heat" for the answer on screen, as data: which station-indices
 * request to send for it (the first point, or a field's centre, over every
 * season the stations hold) and how to lay out the answer (per family of
 * seasons, the latest season against the others, with completeness). Pure.
 */
import {
  INDEX_DEFAULTS,
  MAX_INDEX_DAYS,
  STATION_INDICES,
  type IndexAnswer,
  type StationIndexName,
} from '../contract/station-indices.ts';
import type { Endpoint } from '../contract/types.ts';
import { parseWkts } from '../contract/wkt.ts';
import { formatValue } from './series-format.ts';
import { blankWords, MONTH_NAMES } from './words.ts';

/** The indices asked, by family, as the view shows them. */
export const SHOWN: ReadonlyArray<{ family: 'chill' | 'heat' | 'frost'; title: string; indices: StationIndexName[] }> =
  [
    { family: 'chill', title: 'Winter chill', indices: ['chill_portions', 'dpcu'] },
    { family: 'heat', title: 'Growing-season heat', indices: ['gdd', 'gdh'] },
    { family: 'frost', title: 'Frost', indices: ['frost_days', 'frost_hours'] },
  ];

/** The request for an answer, or why there is none. */
export type IndicesPlan = { ok: true; body: Record<string, unknown>; where: string } | { ok: false; reason: string };

/** The days the stations hold (first and last `yyyy-mm-dd`), or null. */
export type HeldDays = { first: string; last: string } | null;

const DAY = 86_400_000;

/** The station-indices request for the answer of `endpoint` to `body`: by season over every day held (the last twenty years at most). */
export function planIndices(endpoint: Endpoint, body: Record<string, unknown>, held: HeldDays): IndicesPlan {
  if (!held) return { ok: false, reason: 'This dataset has no station temperatures to compute chill and heat from.' };
  let wkts: string;
  let where: string;
  try {
    if (endpoint === 'nearest-station' || endpoint === 'point') {
      const points = parseWkts(body.wkts, 'point', 1, 10);
      wkts = points[0]!.key;
      where = points.length > 1 ? 'the nearest station to the first point' : 'the nearest station to the point';
    } else if (endpoint === 'poly-aggregate') {
      wkts = String(body.wkts);
      where = 'the stations inside the polygon, averaged';
    } else if (endpoint === 'polygon') {
      // A field is far smaller than the distance between stations: its centre's nearest station.
      const g = parseWkts(body.wkts, 'polygon', 1, 5)[0]!;
      if (g.kind !== 'polygon') return { ok: false, reason: 'No field to compute chill and heat for.' };
      const ring = g.polygons[0]![0]!.slice(0, -1);
      const lon = ring.reduce((a, p) => a + p[0], 0) / ring.length;
      const lat = ring.reduce((a, p) => a + p[1], 0) / ring.length;
      wkts = `POINT (${lon.toFixed(5)} ${lat.toFixed(5)})`;
      where = "the nearest station to the field's centre";
    } else return { ok: false, reason: 'Chill and heat are computed for points and fields.' };
  } catch {
    return { ok: false, reason: 'Draw a point or a field first.' };
  }
  const last = Date.parse(`${held.last}T00:00:00Z`) / DAY;
  const first = Math.max(Date.parse(`${held.first}T00:00:00Z`) / DAY, last - MAX_INDEX_DAYS + 1);
  const day = (d: number) => new Date(d * DAY).toISOString().slice(0, 10);
  return {
    ok: true,
    where,
    body: {
      wkts,
      indices: SHOWN.flatMap((f) => f.indices),
      startDate: day(first),
      endDate: day(last),
      options: { by: 'season' },
    },
  };
}

/** One season's row: its label, a value per index (null with the reason), and the share of its hours known. */
export interface SeasonRow {
  label: string;
  start: string;
  end: string;
  values: Array<number | null>;
  reasons: Array<string | undefined>;
  known: number;
  /** Hours of the season with a temperature, of those it has: why a value is blank, as data. */
  hours: { used: number; expected: number };
  /** Clipped by the start or end of the record: not a whole season. */
  partial: boolean;
}

/** One family's table. */
export interface FamilyTable {
  family: string;
  title: string;
  /** The season window, in words ("1 May – 31 August"). */
  window: string;
  indices: Array<{ name: StationIndexName; words: string; unit: string; decimals: number }>;
  rows: SeasonRow[];
  /** The latest season against the mean of the others (when there are any with values). */
  summary: string;
}

const words = (iso: string) => `${Number(iso.slice(8, 10))} ${MONTH_NAMES[Number(iso.slice(5, 7)) - 1]}`;

/** A season's name: its year, or "2023/24" across the new year. */
export function seasonName(start: string, end: string): string {
  return start.slice(0, 4) === end.slice(0, 4) ? start.slice(0, 4) : `${start.slice(0, 4)}/${end.slice(2, 4)}`;
}

/** Chill portions to 0.1, everything else in whole units: the data's precision, not more. */
export function decimalsOfIndex(name: StationIndexName): number {
  return name === 'chill_portions' ? 1 : 0;
}

/** Formats a value at its index's precision as the app's tables do (a dash for none). */
export function formatIndex(v: number | null, decimals: number): string {
  return v === null ? '–' : formatValue(v, decimals);
}

/** The answer laid out per family (the first geometry of a point answer, or the polygon's). */
export function arrangeIndices(answer: unknown): FamilyTable[] {
  const a = answer as Record<string, unknown>;
  const indices = (
    'indices' in a && 'stations_metadata' in a
      ? a.indices
      : (Object.values(a)[0] as { indices?: unknown } | undefined)?.indices
  ) as Record<string, IndexAnswer> | undefined;
  if (!indices) return [];
  return SHOWN.map(({ family, title, indices: names }) => {
    const labels = Object.keys(indices[names[0]!]?.periods ?? {});
    const rows: SeasonRow[] = labels.map((label) => {
      const periods = names.map((n) => indices[n]!.periods[label]!);
      const [start, end] = label.split('/') as [string, string];
      return {
        label: seasonName(start, end),
        start,
        end,
        values: periods.map((p) => p.value),
        reasons: periods.map((p) => p.reason),
        known: periods[0]!.hours_expected ? periods[0]!.hours_used / periods[0]!.hours_expected : 0,
        hours: { used: periods[0]!.hours_used, expected: periods[0]!.hours_expected },
        partial: false,
      };
    });
    const cols = names.map((name) => ({
      name,
      words: STATION_INDICES[name].words,
      unit: STATION_INDICES[name].unit,
      decimals: decimalsOfIndex(name),
    }));
    // The season's own dates: the route's defaults, which the request leaves in place.
    const [ws, we] = INDEX_DEFAULTS[`${family}Season`].split('/') as [string, string];
    const window = `${ws}|${we}`;
    for (const r of rows) {
      r.partial = `${r.start.slice(5)}|${r.end.slice(5)}` !== window;
      // A clipped season keeps its own name: Jan–Mar 2023 is the end of the 2022/23 heat season.
      const y = Number(r.start.slice(0, 4));
      if (we < ws)
        r.label =
          r.start.slice(5) >= ws
            ? `${y}/${String((y + 1) % 100).padStart(2, '0')}`
            : `${y - 1}/${String(y % 100).padStart(2, '0')}`;
    }
    return {
      family,
      title,
      window: ws && we ? `${words(`0000-${ws}`)} – ${words(`0000-${we}`)}` : '',
      indices: cols,
      rows,
      summary: summaryOf(rows, cols, window),
    };
  });
}

function summaryOf(rows: SeasonRow[], cols: FamilyTable['indices'], window: string): string {
  const latest = rows[rows.length - 1];
  if (!latest) return 'The window holds no season.';
  const first = cols[0]!;
  const v = latest.values[0] ?? null;
  // Why, from the season's hours (the answer's own reason names a request option: for developers).
  if (v === null)
    return `${latest.label}: no ${first.words.toLowerCase()} — ${blankWords(latest.hours, INDEX_DEFAULTS.minCompleteness)}`;
  // Whole seasons only: a season clipped by the record's start or end is not comparable.
  const others = rows
    .slice(0, -1)
    .filter((r) => !r.partial)
    .map((r) => r.values[0])
    .filter((x): x is number => x !== null && x !== undefined);
  const partial = `${latest.start.slice(5)}|${latest.end.slice(5)}` !== window;
  const head = `${latest.label}${partial ? ' (so far)' : ''}: ${formatIndex(v, first.decimals)} ${first.unit}.`;
  if (others.length === 0) return `${head} No other season has a value to compare with.`;
  const mean = others.reduce((s, x) => s + x, 0) / others.length;
  const few =
    others.length < 3 ? ` Only ${others.length} other season${others.length > 1 ? 's' : ''} to compare with.` : '';
  if (others.length === 1)
    return `${head} The other whole season: ${formatIndex(mean, first.decimals)} ${first.unit}.${few}`;
  return `${head} The other ${others.length} whole seasons: mean ${formatIndex(mean, first.decimals)} ${first.unit}, lowest ${formatIndex(Math.min(...others), first.decimals)}, highest ${formatIndex(Math.max(...others), first.decimals)}.${few}`;
}
