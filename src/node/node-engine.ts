/** An engine for Node: a dataset folder or URL, read through local files or HTTP Range requests. */
import { createClimateEngine, type ClimateEngine } from '../engine/engine.ts';
import { openLocalOrHttpSource } from '../rasters/file-source.ts';
import { locationOf } from './file-location.ts';

/**
 * Former choice of SQL engine for station queries. Stations are now read
 * from Parquet with hyparquet everywhere (issue 9), so it has no effect;
 * kept so callers written against the old signature still compile.
 */
export type BackendName = 'native' | 'wasm';

/** Creates an engine on `dataset` (folder or http(s) URL). The second argument is ignored (see {@link BackendName}). */
export function createNodeEngine(dataset: string, _backend?: BackendName): ClimateEngine {
  return createClimateEngine({ dataset: locationOf(dataset), openByteSource: openLocalOrHttpSource });
}
