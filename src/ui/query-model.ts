/**
 * What the UI asks for, as plain data: the form state, the drawn
 * geometries, the request built from them, and the tabular series built
 * from an answer (the chart, the table and the CSV all read the same
 * series, so they cannot disagree). No DOM here.
 */
import { csvComment, csvField } from '../contract/csv.ts';
import {
  CONTRACT_RASTER_LAYERS,
  type AggregationMethod,
  type RasterLayerDeclaration,
} from '../contract/raster-layers.ts';
import type { StationTimeScale } from '../contract/station-data-types.ts';
import type { Endpoint } from '../contract/types.ts';
import { areaM2 } from '../contract/geodesic.ts';
import type { PolygonCoords, Position } from '../contract/wkt.ts';
import { stationTypeInfo } from '../contract/station-type-info.ts';
import { MONTH_NAMES, stationWords, subTypeName } from './words.ts';

/** A geometry drawn on the map. */
export interface DrawnGeometry {
  id: string;
  kind: 'point' | 'polygon';
  /** [lon, lat] for points, rings for polygons. */
  coordinates: Position | PolygonCoords;
  /** The name it came with (a pasted GeoJSON feature's "name"), shown beside G1, G2…. */
  name?: string;
}

/** Everything the form holds; also what the URL carries. */
export interface FormState {
  source: 'stations' | 'raster';
  timeScale: StationTimeScale;
  dataTypes: string[];
  dataType: string;
  subDataType: string;
  aggregationMethod: AggregationMethod;
  startDate: string;
  endDate: string;
}

/** The state the app starts with. */
export const DEFAULT_FORM: FormState = {
  source: 'stations',
  timeScale: 'daily',
  dataTypes: ['temperature_max', 'rain_sum'],
  dataType: 'temp',
  subDataType: 'mean',
  aggregationMethod: 'mean',
  startDate: '2024-06-01',
  endDate: '2024-06-30',
};

const fmt = (x: number) => String(Math.round(x * 1e6) / 1e6);

/** WKT of a drawn geometry, 6 decimals (≈ 0.1 m). */
export function wktOf(g: DrawnGeometry): string {
  if (g.kind === 'point') {
    const [lon, lat] = g.coordinates as Position;
    return `POINT (${fmt(lon)} ${fmt(lat)})`;
  }
  const rings = (g.coordinates as PolygonCoords).map(
    (ring) => `(${ring.map(([x, y]) => `${fmt(x)} ${fmt(y)}`).join(', ')})`,
  );
  return `POLYGON (${rings.join(', ')})`;
}

/** Geodesic area of a drawn polygon in m² (0 for points). */
export function areaOf(g: DrawnGeometry): number {
  return g.kind === 'polygon' ? areaM2([g.coordinates as PolygonCoords]) : 0;
}

/** The endpoint the form and the geometries call for: the kind of the most recently drawn geometry wins. */
export function endpointFor(
  form: FormState,
  geometries: readonly DrawnGeometry[],
): { endpoint: Endpoint; used: DrawnGeometry[] } | null {
  const last = geometries[geometries.length - 1];
  if (!last) return null;
  const used = geometries.filter((g) => g.kind === last.kind);
  const endpoint: Endpoint =
    form.source === 'stations'
      ? last.kind === 'point'
        ? 'nearest-station'
        : 'poly-aggregate'
      : last.kind === 'point'
        ? 'point'
        : 'polygon';
  return { endpoint, used };
}

/**
 * What the UI needs of a raster layer: a catalog entry (the dataset declares its layers), or the
 * contract's declaration. `scale` (stored value × scale = value) gives the layer's step, so values
 * are shown at the precision the layer stores them (0.1 °C; whole chill units).
 */
export type LayerInfo = Pick<
  RasterLayerDeclaration,
  'dataType' | 'subDataType' | 'extent' | 'timeScale' | 'unit' | 'description'
> & { scale?: number };

/** The layer `dataType`/`subDataType` names among `layers`, if the dataset has it. */
export function layerOf(
  layers: readonly LayerInfo[],
  dataType: string,
  subDataType: string | undefined,
): LayerInfo | undefined {
  return (
    layers.find((l) => l.dataType === dataType && l.subDataType === subDataType) ??
    (subDataType === undefined ? layers.find((l) => l.dataType === dataType) : undefined)
  );
}

/**
 * The request body for the form and geometries (not validated: the
 * contract's validators do that). `layers` are the dataset's (its catalog);
 * a layer it lacks gets an empty extent, which the validators name.
 */
export function buildRequest(
  form: FormState,
  geometries: readonly DrawnGeometry[],
  layers: readonly LayerInfo[] = CONTRACT_RASTER_LAYERS,
): { endpoint: Endpoint; path: string; body: Record<string, unknown> } | null {
  const target = endpointFor(form, geometries);
  if (!target) return null;
  const wkts = target.used.map(wktOf).join(';');
  if (target.endpoint === 'nearest-station' || target.endpoint === 'poly-aggregate') {
    return {
      endpoint: target.endpoint,
      path: `/api/${target.endpoint}/`,
      body: {
        wkts,
        dataTypes: form.dataTypes,
        options: { timeScale: form.timeScale },
        startDate: form.startDate,
        endDate: form.endDate,
      },
    };
  }
  const family = layerOf(layers, form.dataType, form.subDataType) ?? { extent: '', timeScale: null };
  const options: Record<string, unknown> = { subDataType: form.subDataType, dataExtent: family.extent };
  if (family.timeScale) options.timeScale = family.timeScale;
  if (target.endpoint === 'polygon') options.aggregationMethod = form.aggregationMethod;
  const body: Record<string, unknown> = { wkts, dataType: form.dataType, options };
  if (family.timeScale) {
    body.startDate = form.startDate;
    body.endDate = form.endDate;
  }
  return { endpoint: target.endpoint, path: `/api/${target.endpoint}/`, body };
}

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

/** Rows (period keys, or geometry labels for undated layers) and the series over them. */
export interface ResultTable {
  rows: string[];
  series: Series[];
  /** Whether rows are times (for the chart's x axis). */
  temporal: boolean;
  /** The time scale of the rows; null for undated layers. */
  timeScale: string | null;
}

type Values = Record<string, number | null>;

/**
 * Turns any endpoint's answer into one table. Geometries are labelled
 * G1, G2… in request order, matching the list next to the map.
 */
export function toTable(
  endpoint: Endpoint,
  request: Record<string, unknown>,
  answer: unknown,
  layers: readonly LayerInfo[] = CONTRACT_RASTER_LAYERS,
): ResultTable {
  if (endpoint === 'nearest-station') {
    const res = answer as Record<string, { data: Record<string, Values> }>;
    const types = request.dataTypes as string[];
    const keys = Object.keys(res);
    const rows = keys.length ? Object.keys(res[keys[0]!]!.data) : [];
    const scale = (request.options as { timeScale: string }).timeScale;
    const series = keys.flatMap((k, i) =>
      types.map((t) => ({
        label: `G${i + 1} ${t}`,
        title: `G${i + 1} ${stationWords(scale, t).name}`,
        unit: stationUnit(t),
        decimals: stationTypeInfo(scale, t).decimals,
        values: rows.map((r) => res[k]!.data[r]?.[t] ?? null),
      })),
    );
    return { rows, series, temporal: true, timeScale: scale };
  }
  if (endpoint === 'poly-aggregate') {
    const res = answer as { aggregated_data: Record<string, Values> };
    const types = request.dataTypes as string[];
    const rows = Object.keys(res.aggregated_data);
    const scale = (request.options as { timeScale: string }).timeScale;
    const series = types.flatMap((t) => [
      {
        label: `G1 ${t}`,
        title: `G1 ${stationWords(scale, t).name}, mean of the stations inside`,
        unit: stationUnit(t),
        decimals: stationTypeInfo(scale, t).decimals,
        values: rows.map((r) => res.aggregated_data[r]?.[t] ?? null),
      },
      {
        label: `G1 ${t}_station_count`,
        title: `G1 ${stationWords(scale, t).name}: stations`,
        unit: 'stations',
        decimals: 0,
        values: rows.map((r) => res.aggregated_data[r]?.[`${t}_station_count`] ?? null),
      },
    ]);
    return { rows, series, temporal: true, timeScale: scale };
  }
  const res = answer as Record<string, Values | number | null>;
  const keys = Object.keys(res);
  const sub = (request.options as { subDataType?: string }).subDataType;
  const family = layerOf(layers, String(request.dataType), sub) ?? {
    dataType: String(request.dataType),
    unit: '',
    timeScale: null,
    description: String(request.dataType),
  };
  const label = `${family.dataType} ${sub ?? ''}`.trim();
  // Plain: the catalog's description, the variant's name where there is one to tell apart, and for a
  // field how its pixels were combined (the chart must say whether it shows the min, mean or max).
  const how =
    endpoint === 'polygon'
      ? `, ${String((request.options as { aggregationMethod?: string }).aggregationMethod ?? 'mean')} over the field`
      : '';
  // Mid-sentence the variant reads in lower case ("Daily air temperature, daily maximum"); acronyms stay ("DPCU").
  const variant = (name: string) => (/^[A-Z][a-z]/.test(name) ? name.charAt(0).toLowerCase() + name.slice(1) : name);
  const title = `${sub && sub !== '-' ? `${family.description}, ${variant(subTypeName(family.dataType, sub))}` : family.description}${how}`;
  const decimals = layerDecimals((family as LayerInfo).scale, family.unit);
  const total = layerIsTotal(family.unit, label, family.timeScale);
  if (family.timeScale === null) {
    return {
      rows: keys.map((_, i) => `G${i + 1}`),
      series: [{ label, title, unit: family.unit, decimals, total, values: keys.map((k) => res[k] as number | null) }],
      temporal: false,
      timeScale: null,
    };
  }
  const rows = keys.length ? Object.keys(res[keys[0]!] as Values) : [];
  const series = keys.map((k, i) => ({
    label: `G${i + 1} ${label}`,
    title: `G${i + 1} ${title}`,
    unit: family.unit,
    decimals,
    total,
    values: rows.map((r) => (res[k] as Values)[r] ?? null),
  }));
  return { rows, series, temporal: family.timeScale !== 'calendar_month', timeScale: family.timeScale };
}

/**
 * x value of a row for the chart: for hourly and daily rows, the dataset's
 * wall-clock time (SAST for the demo) counted as if it were UTC, and the
 * chart draws its axis in UTC (see main.ts), so 00:00 in the data shows as
 * 00:00 whatever the browser's time zone; a 1-based index otherwise
 * (months, years and calendar months are drawn one slot each).
 */
export function xOf(row: string, index: number, temporal: boolean, timeScale: string | null = 'daily'): number {
  if (!temporal || !isTimeAxis(timeScale)) return index + 1;
  const iso = /^\d{4}$/.test(row) ? `${row}-07-01T00:00:00Z` : row.length === 10 ? `${row}T00:00:00Z` : `${row}Z`;
  return Date.parse(iso) / 1000;
}

/** Whether rows of this time scale go on a time axis (else one slot per row). */
export function isTimeAxis(timeScale: string | null): boolean {
  return timeScale === 'hourly' || timeScale === 'daily';
}

/** Month names as a South African reads them in English. */
export const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;
/**
 * A period key as a person reads it: "2024-06-01 00:00" (hourly),
 * "2024-06-01" (daily), "11–20 Jun 2024" (dekadal), "Jun 2024" (monthly), "2019" (annual), "January"
 * (calendar month). Never M/D.
 */
export function periodLabel(row: string, timeScale: string | null): string {
  let m: RegExpExecArray | null;
  if ((m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(row))) return `${m[1]} ${m[2]}`;
  if ((m = /^--(\d{2})$/.exec(row))) return MONTH_NAMES[Number(m[1]) - 1] ?? row;
  if ((m = /^(\d{4})-(\d{2})(-01)?$/.exec(row)) && (timeScale === 'monthly' || row.length === 7))
    return `${MONTHS[Number(m[2]) - 1]} ${m[1]}`;
  // A dekad by its days: "11–20 Jun 2024", "21–30 Jun 2024".
  if ((m = /^(\d{4})-(\d{2})-(01|11|21)$/.exec(row)) && timeScale === 'dekadal') {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const lastDay = d < 21 ? d + 9 : new Date(Date.UTC(y, mo, 0)).getUTCDate();
    return `${d}–${lastDay} ${MONTHS[mo - 1]} ${y}`;
  }
  return row;
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

/**
 * The table as CSV (RFC 4180) a person can file: `about` lines first, each
 * as "# …" (what was asked, of which station or field, in which time zone,
 * from which dataset; pandas reads past them with `comment='#'`), then
 * headings in words with units, then values at each series' own step,
 * empty cells for null. `periodHeader` heads the first column.
 */
export function toCsv(t: ResultTable, periodHeader = 'Period', about: readonly string[] = []): string {
  const q = csvField;
  const pre = about.map(csvComment);
  const head = [periodHeader, ...t.series.map(seriesHeading)].map(q).join(',');
  const dec = t.series.map(seriesDecimals);
  const lines = t.rows.map((r, i) => [q(r), ...t.series.map((s, k) => formatValue(s.values[i], dec[k]!))].join(','));
  // The headings first and the notes after the data: a spreadsheet takes the first row as the
  // headings and the table as one block; pandas still reads past the notes (comment='#').
  return `${[head, ...lines, ...pre].join('\n')}\n`;
}

/**
 * A file name that says what a download holds: place, data and dates, e.g.
 * "paarl_temperature-max-rain-sum_2024-06-01_2024-06-30.csv"; letters,
 * digits and "-" only, at most 120 characters before the extension.
 */
export function downloadName(parts: ReadonlyArray<string | null | undefined>, ext: string): string {
  const slug = (x: string) =>
    x
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '');
  const name = parts
    .map((p) => slug(p ?? ''))
    .filter(Boolean)
    .join('_')
    .slice(0, 120)
    .replace(/[-_]+$/, '');
  return `${name || 'climate-query'}.${ext}`;
}

/** Encodes the form and geometries for the URL hash. */
export function encodeState(form: FormState, geometries: readonly DrawnGeometry[]): string {
  return `#q=${encodeURIComponent(JSON.stringify({ f: form, g: geometries.map((g) => ({ k: g.kind, c: g.coordinates, ...(g.name ? { n: g.name } : {}) })) }))}`;
}

/** Decodes a URL hash written by {@link encodeState}; null when absent or unreadable. */
export function decodeState(hash: string): { form: FormState; geometries: DrawnGeometry[] } | null {
  const m = /^#q=([^&]*)/.exec(hash);
  if (!m) return null;
  try {
    const v = JSON.parse(decodeURIComponent(m[1]!)) as {
      f: Partial<FormState>;
      g: Array<{ k: 'point' | 'polygon'; c: Position | PolygonCoords; n?: unknown }>;
    };
    return {
      form: { ...DEFAULT_FORM, ...v.f },
      geometries: v.g.map((g, i) => ({
        id: `u${i}`,
        kind: g.k,
        coordinates: g.c,
        ...(typeof g.n === 'string' && g.n ? { name: g.n.slice(0, 80) } : {}),
      })),
    };
  } catch {
    return null;
  }
}

/** The map view in the URL hash: "map=zoom/lat/lon", as common map sites write it. */
export function encodeView(v: { zoom: number; lat: number; lon: number }): string {
  return `map=${v.zoom.toFixed(2)}/${v.lat.toFixed(5)}/${v.lon.toFixed(5)}`;
}

/** The map view a hash holds, or null. */
export function decodeView(hash: string): { zoom: number; lat: number; lon: number } | null {
  const m = /[#&]map=(-?[\d.]+)\/(-?[\d.]+)\/(-?[\d.]+)/.exec(hash);
  if (!m) return null;
  const [zoom, lat, lon] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return Number.isFinite(zoom) && Math.abs(lat) <= 90 && Math.abs(lon) <= 180 ? { zoom, lat, lon } : null;
}
