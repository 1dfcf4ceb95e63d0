/**
 * What the UI asks for, as plain data: the form state, the drawn geometries and the request built
 * from them (not validated: the contract's validators do that). No DOM here.
 */
import {
  CONTRACT_RASTER_LAYERS,
  type AggregationMethod,
  type RasterLayerDeclaration,
} from '../contract/raster-layers.ts';
import type { StationTimeScale } from '../contract/station-data-types.ts';
import type { Endpoint } from '../contract/types.ts';
import { areaM2 } from '../contract/geodesic.ts';
import type { PolygonCoords, Position } from '../contract/wkt.ts';

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
