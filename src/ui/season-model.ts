/**
 * A season against normal, as plain data: which request asks the engine
 * for every year the dataset holds, and, from its answer, the chosen year
 * beside the mean and the min–max range of the other years. Annual layers
 * compare one value per year; monthly and dekadal layers and station
 * records compare month by month, dekad by dekad. No DOM here; the engine
 * answers, this only arranges its numbers.
 */
import { CALENDARS } from '../contract/calendars.ts';
import { requestDateOf, type TimeScale } from '../contract/periods.ts';
import { TIME_SCALES } from '../contract/time-scales.ts';
import type { Endpoint } from '../contract/types.ts';
import { MONTHS } from './result-table.ts';

/**
 * The scales whose periods repeat within a year, compared period by period
 * with the same period of other years: the slots' labels and what the axis
 * writes under each. A key's slot is its period's place in the year, from
 * the scale's calendar (contract/calendars.ts).
 */
const IN_YEAR = {
  monthly: { slots: [...MONTHS], axis: [...MONTHS] },
  // Dekads by their first day: "1 Jan", "11 Jan", "21 Jan", … (36 a year); the axis names each month once.
  dekadal: { slots: MONTHS.flatMap((m) => [`1 ${m}`, `11 ${m}`, `21 ${m}`]), axis: MONTHS.flatMap((m) => [m, '', '']) },
} as const;

/** The place in its year (0-based) of the period keyed `key` at an in-year scale. */
function slotOf(scale: keyof typeof IN_YEAR, key: string): number {
  const n = IN_YEAR[scale].slots.length;
  const o = CALENDARS[TIME_SCALES[scale].calendar].ordinalOfKey(key);
  return ((o % n) + n) % n;
}

/** Time scales a season view exists for. */
export type SeasonScale = 'annual' | keyof typeof IN_YEAR;

/** True when a season against normal is drawn for data of `scale`. */
export function hasSeason(scale: string | null): scale is SeasonScale {
  return scale === 'annual' || (scale !== null && Object.hasOwn(IN_YEAR, scale));
}

/** The engine request for all years, or why there is none. */
export type SeasonPlan =
  | { ok: true; scale: SeasonScale; path: string; body: Record<string, unknown>; years: string[] }
  | { ok: false; reason: string };

/** What the dataset holds for a request: its time scale and its first and last period key. */
export interface HeldSpan {
  scale: string | null;
  first: string;
  last: string;
}

/** Distinct years from `first` to `last` (period keys beginning with the year). */
export function yearsBetween(first: string, last: string): string[] {
  const out: string[] = [];
  for (let y = Number(first.slice(0, 4)); y <= Number(last.slice(0, 4)); y++) out.push(String(y));
  return out;
}

/**
 * The request that asks the engine for every year the dataset holds: the
 * same endpoint, geometries and options as `body`, dates widened to `held`.
 * Null reason texts say why there is no season view.
 */
export function planSeason(endpoint: Endpoint, body: Record<string, unknown>, held: HeldSpan | null): SeasonPlan {
  if (!held || !hasSeason(held.scale)) {
    return {
      ok: false,
      reason:
        'A season against normal is drawn for annual, monthly and dekadal data (climate layers by year, month or dekad, and monthly or dekadal station records).',
    };
  }
  const scale = held.scale;
  const years = yearsBetween(held.first, held.last);
  if (years.length < 2)
    return {
      ok: false,
      reason: `This dataset holds only ${years[0] ?? 'one year'} for this; there are no other years to compare with.`,
    };
  const key = (k: string) => requestDateOf(scale as TimeScale, k);
  return {
    ok: true,
    scale,
    path: `/api/${endpoint}/`,
    body: { ...body, startDate: key(held.first), endDate: key(held.last) },
    years,
  };
}

/** The chosen year against the other years, ready to draw. */
export interface Season {
  scale: SeasonScale;
  year: string;
  /** The other years that have at least one value. */
  otherYears: string[];
  /** x slots: the years (annual), Jan…Dec (monthly) or the 36 dekads (dekadal). */
  slots: string[];
  /** What the x axis writes under each slot ('' for none: a month's later dekads). */
  axis: string[];
  /** One slot in words: "year", "month", "dekad". */
  slotWord: string;
  /** The chosen year's value per slot (annual: only at its own year). */
  chosen: Array<number | null>;
  /** Annual only: each other year's value at its slot. */
  others: Array<number | null>;
  /** Mean, min and max of the other years per slot (annual: the same in every slot); null where none has a value. */
  mean: Array<number | null>;
  min: Array<number | null>;
  max: Array<number | null>;
  /** How many other years each slot's statistics are over. */
  count: number[];
}

const stats = (vs: number[]) =>
  vs.length ? { mean: vs.reduce((a, b) => a + b, 0) / vs.length, min: Math.min(...vs), max: Math.max(...vs) } : null;

/**
 * Arranges one series of the all-years answer (`rows` are its period keys)
 * around `year`. Null when no other year has a value: there is no normal
 * to draw then.
 */
export function seasonOf(
  scale: SeasonScale,
  rows: readonly string[],
  values: ReadonlyArray<number | null>,
  year: string,
): Season | null {
  const yearOf = (r: string) => r.slice(0, 4);
  const has = (i: number) => values[i] !== null && values[i] !== undefined && Number.isFinite(values[i]);
  const otherYears = [...new Set(rows.filter((r, i) => yearOf(r) !== year && has(i)).map(yearOf))].sort();
  if (!otherYears.length) return null;
  if (scale === 'annual') {
    const slots = [...new Set(rows.map(yearOf))].sort();
    const valueIn = (y: string) => {
      const i = rows.findIndex((r) => yearOf(r) === y);
      return i >= 0 && has(i) ? values[i]! : null;
    };
    const s = stats(otherYears.map(valueIn).filter((v): v is number => v !== null))!;
    return {
      scale,
      year,
      otherYears,
      slots,
      axis: slots,
      slotWord: 'year',
      chosen: slots.map((y) => (y === year ? valueIn(y) : null)),
      others: slots.map((y) => (y === year ? null : valueIn(y))),
      mean: slots.map(() => s.mean),
      min: slots.map(() => s.min),
      max: slots.map(() => s.max),
      count: slots.map(() => otherYears.length),
    };
  }
  const { slots, axis } = IN_YEAR[scale];
  const bySlot = (y: string | null) =>
    slots.map((_, n) =>
      rows.flatMap((r, i) =>
        (y === null ? yearOf(r) !== year : yearOf(r) === y) && slotOf(scale, r) === n && has(i) ? [values[i]!] : [],
      ),
    );
  const others = bySlot(null).map(stats);
  return {
    scale,
    year,
    otherYears,
    slots: [...slots],
    axis: [...axis],
    slotWord: TIME_SCALES[scale].period,
    chosen: bySlot(year).map((vs) => vs[0] ?? null),
    others: [],
    mean: others.map((s) => s?.mean ?? null),
    min: others.map((s) => s?.min ?? null),
    max: others.map((s) => s?.max ?? null),
    count: bySlot(null).map((vs) => vs.length),
  };
}

/** "2019–2023", "2019, 2021–2023" or "2023": the other years in few characters. */
export function yearsLabel(years: readonly string[]): string {
  const runs: string[][] = [];
  for (const y of years) {
    const run = runs[runs.length - 1];
    if (run && Number(run[run.length - 1]) + 1 === Number(y)) run.push(y);
    else runs.push([y]);
  }
  return runs.map((r) => (r.length > 1 ? `${r[0]}–${r[r.length - 1]}` : r[0]!)).join(', ');
}
