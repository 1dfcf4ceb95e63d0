/** climate-query for Node: engines on folders or URLs, the HTTP server, dataset builds. */
export { createNodeEngine, type NodeEngineOptions } from './node-engine.ts';
export { startServer, type ServerOptions, type RunningServer } from './server.ts';
export { fileLocation, locationOf } from './file-location.ts';
export { buildStations, buildStationsWithReport, BuildInputError, type StationInputs, type StationBuildOptions, type StationBuildReport, type ScaleReport } from '../build/stations-build.ts';
export { buildDemo, DEFAULT_DATASET } from './demo.ts';
export { indexStations } from '../build/station-index-build.ts';
export * from '../index.ts';
export { createNativeSqlRunner, type NativeSqlOptions } from './native-sql-runner.ts';
