/**
 * The option lists of the query form, read from the contract's one
 * description of time scales (contract/time-scales.ts), station data types
 * (contract/station-types.ts) and aggregation methods
 * (contract/raster-layers.ts), so index.html holds none and a scale or type
 * added there shows up here. Pure: no DOM.
 */
import { AGGREGATION_METHODS, type AggregationMethod } from '../contract/raster-layers.ts';
import { STATION_TIME_SCALES, STATION_TYPES, type StationTimeScale } from '../contract/station-data-types.ts';
import { TIME_SCALES } from '../contract/time-scales.ts';
import { stationWords, withUnit } from './words.ts';

/** One choice of a list: the value sent, the text shown. */
export interface FormOption {
  value: string;
  label: string;
}

/** The station time scales, finest first, each by its name ("hourly"). */
export function timeScaleOptions(): FormOption[] {
  return STATION_TIME_SCALES.map((s) => ({ value: s, label: TIME_SCALES[s].name }));
}

/**
 * The station data types at `scale` in the contract's order, only those in
 * `held` when given (what the dataset holds): labelled by plain name and
 * unit, titled with the contract name.
 */
export function stationTypeOptions(
  scale: StationTimeScale,
  held?: readonly string[],
): Array<FormOption & { title: string }> {
  const types = STATION_TYPES[scale] ?? [];
  return types
    .filter((t) => !held || held.includes(t))
    .map((t) => ({ value: t, label: withUnit(stationWords(scale, t)), title: t }));
}

/** The form's first (preselected) aggregation, as the form has always offered it. */
const FIRST_AGGREGATION: AggregationMethod = 'mean';

/** The aggregation methods of /api/polygon/: mean first, then the others in the contract's order. */
export function aggregationOptions(): FormOption[] {
  const methods = [FIRST_AGGREGATION, ...AGGREGATION_METHODS.filter((m) => m !== FIRST_AGGREGATION)];
  return methods.map((m) => ({ value: m, label: m }));
}
