/**
 * Request and response shapes of the four endpoints (contract 2.1, 2.2,
 * 2.6), as clients send and receive them, and the validated queries the
 * engine runs.
 */
import type { StationTimeScale } from './station-data-types.ts';
import type { AggregationMethod } from './raster-layers.ts';
import type { PeriodRange, TimeScale } from './periods.ts';
import type { ParsedGeometry } from './wkt.ts';
import type { StationIndicesRequest, StationIndicesResponse } from './station-indices.ts';

/** The endpoints, named as in their paths: the contract's four, then the extension `station-indices` (docs/indices.md). */
export type Endpoint = 'nearest-station' | 'poly-aggregate' | 'point' | 'polygon' | 'station-indices';
/** Every endpoint, in contract order, the extension last. */
export const ENDPOINTS: readonly Endpoint[] = [
  'nearest-station',
  'poly-aggregate',
  'point',
  'polygon',
  'station-indices',
];

/** Body of POST /api/nearest-station/ and /api/poly-aggregate/. */
export interface StationRequest {
  wkts: string;
  dataTypes: string[];
  options: { timeScale: StationTimeScale };
  startDate: string;
  endDate: string;
}

/** Body of POST /api/point/. */
export interface PointRequest {
  wkts: string;
  /** A layer the dataset's catalog declares (the contract's six: temp, gdd, chill, frost, rain, windspeed). */
  dataType: string;
  options: { subDataType?: string; timeScale?: TimeScale; dataExtent: string };
  startDate?: string;
  endDate?: string;
}

/** Body of POST /api/polygon/. */
export interface PolygonRequest extends Omit<PointRequest, 'options'> {
  options: PointRequest['options'] & { aggregationMethod: AggregationMethod };
}

/** Station metadata of one nearest-station answer. */
export interface NearestStationMetadata {
  station_lat: number;
  station_lon: number;
  station_elevation: number | null;
  distance_from_point_m: number;
  actual_nearest: boolean;
}

/** Values of one period: data type → number or null. */
export type PeriodValues = Record<string, number | null>;

/** Response of /api/nearest-station/: keyed by each point's WKT text. */
export type NearestStationResponse = Record<
  string,
  { metadata: NearestStationMetadata; data: Record<string, PeriodValues> }
>;

/** Response of /api/poly-aggregate/. */
export interface PolyAggregateResponse {
  stations_metadata: Record<string, { station_lat: number; station_lon: number; station_elevation: number | null }>;
  aggregated_data: Record<string, PeriodValues>;
}

/** Response of /api/point/ and /api/polygon/: per WKT, periods → value, or the value itself for undated layers. */
export type RasterResponse = Record<string, Record<string, number | null> | number | null>;

/** Response of each endpoint. */
export interface ResponseOf {
  'nearest-station': NearestStationResponse;
  'poly-aggregate': PolyAggregateResponse;
  point: RasterResponse;
  polygon: RasterResponse;
  'station-indices': StationIndicesResponse;
}

/** Request of each endpoint. */
export interface RequestOf {
  'nearest-station': StationRequest;
  'poly-aggregate': StationRequest;
  point: PointRequest;
  polygon: PolygonRequest;
  'station-indices': StationIndicesRequest;
}

/** A validated station query. */
export interface StationQuery {
  endpoint: 'nearest-station' | 'poly-aggregate';
  dataTypes: string[];
  timeScale: StationTimeScale;
  range: PeriodRange;
  geometries: ParsedGeometry[];
}

/** A validated raster query. */
export interface RasterQuery {
  endpoint: 'point' | 'polygon';
  dataType: string;
  subDataType: string;
  extent: string;
  /** Null for undated layers. */
  range: PeriodRange | null;
  geometries: ParsedGeometry[];
  /** Only for the polygon endpoint. */
  aggregationMethod: AggregationMethod | null;
}
