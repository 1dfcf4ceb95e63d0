/**
 * What the form means for a dataset, as pure functions of the state: the
 * layer it names, the time scale its dates are in, the dates to start from,
 * and the contract's own validation of the request it builds. No DOM.
 */
import { requestDateOf } from '../contract/periods.ts';
import type { RasterLayerEntry } from '../dataset/catalog.ts';
import type { Endpoint } from '../contract/types.ts';
import { VALIDATORS, validatePoint, validatePolygon } from '../contract/validate.ts';
import { defaultStationDates } from './dataset-info.ts';
import { DEFAULT_FORM, type FormState } from './query-request.ts';
import type { AppDataset } from './store.ts';

/** The dataset's raster layers (none before it has loaded). */
export function layersOf(dataset: AppDataset | null): RasterLayerEntry[] {
  return dataset?.catalog.rasters ?? [];
}

/** The layer the form names, if the dataset has it. */
export function formLayer(dataset: AppDataset | null, form: FormState): RasterLayerEntry | undefined {
  return layersOf(dataset).find((l) => l.dataType === form.dataType && l.subDataType === form.subDataType);
}

/** The time scale whose date format the date fields use now (null for an undated layer). */
export function currentScale(dataset: AppDataset | null, form: FormState): string | null {
  return form.source === 'stations' ? form.timeScale : (formLayer(dataset, form)?.timeScale ?? null);
}

/** Validates a request as the engine will: raster layers against this dataset's catalog. Throws ClimateQueryError. */
export function validateRequest(dataset: AppDataset | null, endpoint: Endpoint, body: unknown): void {
  if (endpoint === 'point') validatePoint(body, layersOf(dataset));
  else if (endpoint === 'polygon') validatePolygon(body, layersOf(dataset));
  else VALIDATORS[endpoint](body);
}

/** Sensible dates when the scale or layer changes: the last months (or the whole span) the data holds. */
export function defaultDates(dataset: AppDataset | null, form: FormState): Pick<FormState, 'startDate' | 'endDate'> {
  if (form.source === 'raster') {
    const layer = formLayer(dataset, form);
    const periods = layer?.files.flatMap((f) => f.periods) ?? [];
    if (!layer || !periods.length || layer.timeScale === null) return { startDate: '', endDate: '' };
    const scale = layer.timeScale;
    const toReq = (k: string) => requestDateOf(scale, k);
    const from = scale === 'daily' ? periods[Math.max(0, periods.length - 92)]! : periods[0]!;
    return { startDate: toReq(from), endDate: toReq(periods[periods.length - 1]!) };
  }
  return (
    defaultStationDates(dataset?.stations ?? [], form.timeScale) ?? { startDate: form.startDate, endDate: form.endDate }
  );
}

/** The first form a dataset offers: the demo's choice where the dataset has it, else its own first layer, and its latest data. */
export function defaultForm(dataset: AppDataset): FormState {
  const layer = formLayer(dataset, DEFAULT_FORM) ?? layersOf(dataset)[0];
  const form: FormState = {
    ...DEFAULT_FORM,
    ...(layer ? { dataType: layer.dataType, subDataType: layer.subDataType } : {}),
    ...(dataset.catalog.stations ? {} : { source: 'raster' as const }),
  };
  return { ...form, ...defaultDates(dataset, form) };
}
