/**
 * climate-query for web apps: the engine in a Worker, the service-worker
 * routes, and the contract's types and errors. Node parts (CLI, server,
 * dataset builds) are in `climate-query/node`.
 */
export { createEngineClient, type EngineClient, type EngineClientOptions } from './browser/engine-client.ts';
export {
  registerClimateServiceWorker,
  type ServiceWorkerOptions,
  type RequestHandler,
} from './browser/service-worker-client.ts';
export {
  createClimateEngine,
  type ClimateEngine,
  type ClimateQueries,
  type ClimateEngineOptions,
  type CallOptions,
} from './engine/engine.ts';
export { parseStationIndex, type IndexedStation, type StationFile } from './stations/station-index.ts';
export {
  routeRequest,
  preflight,
  endpointOf,
  /** The largest request body the router reads (its public name since the first release). */
  MAX_REQUEST_BODY_BYTES as MAX_BODY_BYTES,
  MAX_REQUEST_BODY_BYTES,
  type ApiRequest,
  type ApiResponse,
  type ApiJsonResponse,
} from './engine/router.ts';
export { ClimateQueryError, type ErrorCode, type ErrorBody } from './contract/errors.ts';
export {
  validateNearestStation,
  validatePolyAggregate,
  validatePoint,
  validatePolygon,
  LIMITS,
} from './contract/validate.ts';
export { STATION_TYPES, STATION_TIME_SCALES, type StationTimeScale } from './contract/station-data-types.ts';
export {
  RASTER_FAMILIES,
  RASTER_DATA_TYPES,
  EXTENT_BBOX,
  AGGREGATION_METHODS,
  CONTRACT_RASTER_LAYERS,
  RASTER_TIME_SCALES,
  NO_SUB_TYPE,
  type RasterDataType,
  type Extent,
  type AggregationMethod,
  type RasterLayerDeclaration,
  type RasterTimeScale,
  type Bbox,
} from './contract/raster-layers.ts';
export { dateFormatOf, MAX_PERIODS, type TimeScale } from './contract/periods.ts';
export type * from './contract/types.ts';
export type { Catalog, StationsSection, StationCoverage, RasterLayerEntry } from './dataset/catalog.ts';
export { layerPeriods } from './dataset/catalog.ts';
export {
  SQL_LIMITS,
  type StationSqlRequest,
  type StationSqlResult,
  type SqlColumn,
  type SqlValue,
  type SqlRunner,
  type SqlSession,
  type StationTable,
  type StationTableRequest,
} from './sql/station-sql.ts';
export { sqlResultCsv } from './sql/sql-csv.ts';
