/**
 * How a column of results is shown, the same in chart, table, summary and CSV: its digits (the
 * layer's or station type's step, capped by what its unit is read at), whether it is a total over
 * its period (bars from zero), its colour and its heading in words. No DOM here.
 */
import { stationWords } from './words.ts';

/** Unit of a station data type (docs/data.md), for axis labels; the contract's table holds it. */
export function stationUnit(type: string): string {
  return stationWords('daily', type).unit;
}

/** Decimals of a layer's step: 0.1 → 1, 1 → 0, 0.25 → 2; null when the step is unknown (at most 6). */
export function stepDecimals(step: number | undefined): number | null {
  if (step === undefined || !Number.isFinite(step) || step === 0) return null;
  for (let d = 0; d <= 6; d++) if (Math.abs(step * 10 ** d - Math.round(step * 10 ** d)) < 1e-9 * 10 ** d) return d;
  return 6;
}

/** Decimals a series is shown at, the same in chart, table, summary and CSV: its own step, else what its values need. */
export function seriesDecimals(s: Pick<Series, 'decimals' | 'values'>): number {
  return s.decimals ?? decimalsOf(s.values);
}

/** One column of results: a label, its unit and a value per row. */
export interface Series {
  /** The contract's names ("G1 temperature_max"): the CSV's heading, and what isSum reads. */
  label: string;
  /** The same in plain words ("G1 Air temperature, daily maximum"), for the chart and the table. */
  title?: string;
  unit: string;
  /** The step of the values (a station type's or a layer's); absent when unknown, then the values decide. */
  decimals?: number;
  /**
   * Whether each value is a total over its period (drawn as bars from zero), as the layer's unit and
   * time scale say; absent for station types, whose names say it ({@link isSum}).
   */
  total?: boolean;
  values: Array<number | null>;
}

/** Whether `s` is drawn as a total: its own description where it has one, else its name. */
export function isTotal(s: Pick<Series, 'label' | 'total'>, timeScale: string | null): boolean {
  return s.total ?? isSum(s.label, timeScale);
}

/** Units whose values over a period are amounts that add up (a layer in them is a total): mm of rain, hours of sun, days, energy. */
const TOTAL_UNITS =
  /^(mm|cm|in|h|hours?|days?|d|MJ\/m²|kWh\/m²|chill (units|portions|hours)|portions|GDD|°C·d|degree[- ]days)$/i;

/** Most decimals a unit is read at: a rain total of 8.000 mm claims what no gauge measures. */
const UNIT_DECIMALS: Array<[RegExp, number]> = [
  [/^(mm|°C|K|°F|hPa|MJ\/m²|h|cm)$/i, 1],
  [/^(%|W\/m²|°|° from north|days?|chill units|GDD|portions)$/i, 0],
];

/** Decimals of a layer's values: its step's, at most what its unit is read at. */
export function layerDecimals(step: number | undefined, unit: string): number | undefined {
  const d = stepDecimals(step);
  const cap = UNIT_DECIMALS.find(([re]) => re.test(unit.trim()))?.[1];
  if (d === null) return cap;
  return cap === undefined ? d : Math.min(d, cap);
}

/** Whether a layer of `unit` at `timeScale` holds totals over its periods. */
export function layerIsTotal(unit: string, label: string, timeScale: string | null): boolean {
  return TOTAL_UNITS.test(unit.trim()) || isSum(label, timeScale);
}

/** Colours that carry a meaning: the lowest blue, the highest red, a mean or median dark grey, rain teal. */
const MEANING_COLOURS: Array<[RegExp, string]> = [
  [/(^|[_ ])(min|lowest)\b|minimum|lowest/i, '#1d5f8a'],
  [/(^|[_ ])(max|highest)\b|maximum|highest/i, '#c62828'],
  [/rain|precip/i, '#00838f'],
  [/mean|median|average/i, '#455a64'],
];
/** The rest, in order, for series whose names say nothing a colour should. */
const OTHER_COLOURS = ['#2e7d32', '#ef6c00', '#6a1b9a', '#ad1457', '#5d4037', '#9e9d24', '#1d5f8a', '#c62828'];

/**
 * A colour per series: by meaning when one place is shown (a minimum drawn blue, a maximum red,
 * as a grower expects), else by position so each place's series stay apart; never the same twice
 * while colours last.
 */
export function seriesColours(series: ReadonlyArray<Pick<Series, 'label' | 'title'>>): string[] {
  const places = new Set(series.map((s) => s.label.split(' ')[0]));
  const used = new Set<string>();
  const out = series.map((s) => {
    if (places.size > 1) return '';
    const name = `${s.label.split(' ').slice(1).join(' ')} ${s.title ?? ''}`;
    const c = MEANING_COLOURS.find(([re]) => re.test(name))?.[1];
    if (!c || used.has(c)) return '';
    used.add(c);
    return c;
  });
  const rest = [...OTHER_COLOURS, ...MEANING_COLOURS.map(([, c]) => c)].filter((c) => !used.has(c));
  let k = 0;
  return out.map((c) => c || rest[k++ % rest.length]!);
}

/**
 * Decimals that show a series at the data's precision: the fewest (0–3)
 * that represent every value exactly; values that need more are computed
 * (means of several stations or pixels) and get 2.
 */
export function decimalsOf(values: ReadonlyArray<number | null>): number {
  let d = 0;
  for (const v of values) {
    if (v === null || v === undefined || !Number.isFinite(v)) continue;
    let k = d;
    while (k <= 3 && Math.abs(v - Math.round(v * 10 ** k) / 10 ** k) > 1e-9 * Math.max(1, Math.abs(v))) k++;
    if (k > 3) return 2;
    d = k;
  }
  return d;
}

/** A value at `decimals`, "" for null. */
export function formatValue(v: number | null | undefined, decimals: number): string {
  return v === null || v === undefined || !Number.isFinite(v) ? '' : v.toFixed(decimals);
}

/** Whether a series is a total over its period (drawn as bars from zero): rain, sunshine, evaporation, frost days, and every annual or calendar-month layer. */
export function isSum(label: string, timeScale: string | null): boolean {
  return (
    timeScale === 'annual' || timeScale === 'calendar_month' || /rain|sunshine|evaporation|et0|frost|_sum\b/.test(label)
  );
}

/** A column's heading for people: its plain title with the unit ("G1 Air temperature, daily maximum (°C)"). */
export function seriesHeading(s: Pick<Series, 'label' | 'title' | 'unit'>): string {
  const name = s.title ?? s.label;
  // A default layer description carries its unit already ("et0 (mm)"): once is enough.
  return s.unit && !name.endsWith(`(${s.unit})`) ? `${name} (${s.unit})` : name;
}
