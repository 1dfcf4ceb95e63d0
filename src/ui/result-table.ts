/**
 * Any endpoint's answer as one table of rows (periods, or places for undated layers) and series:
 * the chart, the table and the CSV all read it, so they cannot disagree; with the x axis and the
 * period labels people read. No DOM here.
 */
import { CONTRACT_RASTER_LAYERS } from '../contract/raster-layers.ts';
import { stationTypeInfo } from '../contract/station-type-info.ts';
import type { Endpoint } from '../contract/types.ts';
import { type LayerInfo, layerOf } from './query-request.ts';
import { layerDecimals, layerIsTotal, type Series, stationUnit } from './series-format.ts';
import { MONTH_NAMES, stationWords, subTypeName } from './words.ts';

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
