/**
 * One validator per endpoint. Each takes the parsed JSON body as `unknown`
 * and returns a validated query, or throws a 400 {@link ClimateQueryError}
 * naming the field. Nothing invalid gets past here to the data layer.
 */
import { fieldError } from './errors.ts';
import { isObject, list, oneOf, rejectUnknown, requireField, requireObject, type Json } from './fields.ts';
import { parseRange } from './periods.ts';
import { STATION_TIME_SCALES, isStationType, scalesOf, type StationTimeScale } from './station-data-types.ts';
import {
  AGGREGATION_METHODS,
  CONTRACT_RASTER_LAYERS,
  MAX_POLYGON_AREA_M2,
  type AggregationMethod,
  type RasterLayerDeclaration,
} from './raster-layers.ts';
import { resolveRasterOptions } from './raster-options.ts';
import { parseWkts, type ParsedGeometry } from './wkt.ts';
import { quote, truncate } from './quote.ts';
import { areaM2 } from './geodesic.ts';
import type { Endpoint, RasterQuery, StationQuery } from './types.ts';
import { validateStationIndices, type StationIndicesQuery } from './station-indices.ts';

/** An area in km² to 3 decimals, as the app's shape list writes it; a field just past the limit reads "2.001", never "2.000". */
export function km2Text(km2: number, limit = MAX_POLYGON_AREA_M2 / 1e6): string {
  const text = km2.toFixed(3);
  return km2 > limit && Number(text) <= limit ? (Math.ceil(km2 * 1000) / 1000).toFixed(3) : text;
}

/** Limits of contract section 8. */
export const LIMITS = {
  pointsPerQuery: 10,
  dataTypesPerQuery: 5,
  polygonsPerPolyAggregate: 1,
  polygonsPerPolygonQuery: 5,
  polygonAreaM2: MAX_POLYGON_AREA_M2,
} as const;

export { isObject, oneOf, rejectUnknown, requireField, requireObject, type Json } from './fields.ts';
function options(body: Json, allowed: readonly string[]): Json {
  const opts = requireField(body, 'options');
  if (!isObject(opts)) throw fieldError('invalid_field', 'options', 'options must be a JSON object.');
  rejectUnknown(opts, allowed, 'options.');
  return opts;
}

function stationQuery(body: unknown, endpoint: StationQuery['endpoint']): StationQuery {
  const b = requireObject(body);
  rejectUnknown(b, ['wkts', 'dataTypes', 'options', 'startDate', 'endDate'], '');
  const opts = options(b, ['timeScale']);
  const timeScale = oneOf(requireField(opts, 'timeScale', 'options.'), STATION_TIME_SCALES, 'options.timeScale');
  const dataTypes = stationDataTypes(requireField(b, 'dataTypes'), timeScale);
  const range = parseRange(timeScale, requireField(b, 'startDate'), requireField(b, 'endDate'));
  const geometries =
    endpoint === 'nearest-station'
      ? parseWkts(requireField(b, 'wkts'), 'point', 1, LIMITS.pointsPerQuery)
      : parseWkts(requireField(b, 'wkts'), 'polygon', 1, LIMITS.polygonsPerPolyAggregate);
  return { endpoint, dataTypes, timeScale, range, geometries };
}

function stationDataTypes(value: unknown, scale: StationTimeScale): string[] {
  const field = 'dataTypes';
  if (!Array.isArray(value))
    throw fieldError('invalid_field', field, 'dataTypes must be an array of strings, even for one item.');
  if (value.length < 1 || value.length > LIMITS.dataTypesPerQuery) {
    throw fieldError(
      'limit_exceeded',
      field,
      `dataTypes holds ${value.length} names; send 1 to ${LIMITS.dataTypesPerQuery}.`,
      { of: 'dataTypes', min: 1, max: LIMITS.dataTypesPerQuery, got: value.length },
    );
  }
  const seen = new Set<string>();
  value.forEach((name, i) => {
    const f = `dataTypes[${i}]`;
    if (typeof name !== 'string') throw fieldError('invalid_field', f, `${f} must be a string.`);
    if (!isStationType(scale, name)) {
      const elsewhere = scalesOf(name);
      const hint = elsewhere.length
        ? ` It is valid for ${list(elsewhere)}.`
        : ' See table 2.4 of the contract for the names (spelling is exact).';
      throw fieldError('unknown_data_type', f, `${f} ${quote(name)} is not a ${scale} station data type.${hint}`, {
        got: truncate(name),
        timeScale: scale,
        validFor: elsewhere,
      });
    }
    if (seen.has(name)) throw fieldError('invalid_field', f, `${f} ${quote(name)} is listed twice.`);
    seen.add(name);
  });
  return value as string[];
}

/** Validates a body for POST /api/nearest-station/. */
export function validateNearestStation(body: unknown): StationQuery {
  return stationQuery(body, 'nearest-station');
}

/** Validates a body for POST /api/poly-aggregate/. */
export function validatePolyAggregate(body: unknown): StationQuery {
  return stationQuery(body, 'poly-aggregate');
}

function rasterQuery(
  body: unknown,
  endpoint: RasterQuery['endpoint'],
  layers: readonly RasterLayerDeclaration[],
): RasterQuery {
  const b = requireObject(body);
  const { dataType, subDataType, extent, range, options: opts } = resolveRasterOptions(b, endpoint, layers);
  let aggregationMethod: AggregationMethod | null = null;
  let geometries: ParsedGeometry[];
  if (endpoint === 'polygon') {
    aggregationMethod = oneOf(
      requireField(opts, 'aggregationMethod', 'options.'),
      AGGREGATION_METHODS,
      'options.aggregationMethod',
    );
    geometries = parseWkts(requireField(b, 'wkts'), 'polygon', 1, LIMITS.polygonsPerPolygonQuery);
    for (const g of geometries) {
      if (g.kind !== 'polygon') continue;
      const area = areaM2(g.polygons);
      if (area > LIMITS.polygonAreaM2) {
        throw fieldError(
          'polygon_too_large',
          `/wkts/${g.index}`,
          `wkts item ${g.index + 1} has an area of ${km2Text(area / 1e6)} km²; each polygon may be at most 2 km².`,
          { index: g.index, areaKm2: area / 1e6, maxKm2: LIMITS.polygonAreaM2 / 1e6 },
        );
      }
    }
  } else {
    geometries = parseWkts(requireField(b, 'wkts'), 'point', 1, LIMITS.pointsPerQuery);
  }
  return { endpoint, dataType, subDataType, extent, range, geometries, aggregationMethod };
}

/**
 * Validates a body for POST /api/point/ against the raster layers a dataset
 * declares (the engine passes its catalog's); default: the contract's six families.
 */
export function validatePoint(
  body: unknown,
  layers: readonly RasterLayerDeclaration[] = CONTRACT_RASTER_LAYERS,
): RasterQuery {
  return rasterQuery(body, 'point', layers);
}

/** Validates a body for POST /api/polygon/ against `layers`, as {@link validatePoint}. */
export function validatePolygon(
  body: unknown,
  layers: readonly RasterLayerDeclaration[] = CONTRACT_RASTER_LAYERS,
): RasterQuery {
  return rasterQuery(body, 'polygon', layers);
}

/** The validator of each endpoint (raster ones against the contract's six layer families). */
export const VALIDATORS: { [E in Endpoint]: (body: unknown) => StationQuery | RasterQuery | StationIndicesQuery } = {
  'nearest-station': validateNearestStation,
  'poly-aggregate': validatePolyAggregate,
  point: validatePoint,
  polygon: validatePolygon,
  'station-indices': validateStationIndices,
};
