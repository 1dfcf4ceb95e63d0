/** climate-query for Node: engines on folders or URLs, the HTTP server, dataset builds. */
export { createNodeEngine, type NodeEngineOptions } from './node-engine.ts';
export { startServer, type ServerOptions, type RunningServer } from './server.ts';
export { fileLocation, locationOf } from './file-location.ts';
export {
  buildStations,
  buildStationsWithReport,
  BuildError,
  type StationInputs,
  type StationBuildOptions,
  type StationBuildReport,
  type ScaleReport,
} from '../builder/stations-build.ts';
/** @deprecated The earlier name of {@link BuildError}, kept for code that catches it. */
export { BuildError as BuildInputError } from '../builder/build-error.ts';
export type { BuildErrorCode, BuildErrorDetail } from '../builder/build-error.ts';
export { buildDemo, DEFAULT_DATASET } from './demo.ts';
export { indexStations } from '../builder/station-index-build.ts';
export { buildRasterLayer, type RasterBuildOptions, type RasterBuildResult } from '../builder/raster-build.ts';
export { removeRasterLayer, removeStations, type RemoveReport } from '../builder/dataset/dataset-remove.ts';
export {
  importStations,
  importReportText,
  type ImportReport,
  type StationImportOptions,
} from '../builder/import/station-import.ts';
export { STATION_FORMATS } from '../builder/import/station-formats.ts';
export * from '../index.ts';
export { createNativeSqlRunner, type NativeSqlOptions } from './native-sql-runner.ts';
