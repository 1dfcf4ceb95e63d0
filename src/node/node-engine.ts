/** An engine for Node: a dataset folder or URL, native or WASM DuckDB. */
import { createClimateEngine, type ClimateEngine } from '../engine/engine.ts';
import type { OpenSqlBackend } from '../stations/sql-backend.ts';
import { openLocalOrHttpSource } from '../rasters/file-source.ts';
import { locationOf } from './file-location.ts';

/** Which SQL engine answers station queries. */
export type BackendName = 'native' | 'wasm';

// Loaded with the first station query: both are optional peer dependencies
// (src/node/optional-packages.ts), so raster-only use needs neither.
const openNative: OpenSqlBackend = async (location, signal) =>
  (await import('../stations/backends/duckdb-native.ts')).openNativeDuckDB(location, signal);
const openWasm: OpenSqlBackend = async (location, signal) =>
  (await import('../stations/backends/duckdb-wasm-node.ts')).openDuckDBWasmNode(location, signal);

/**
 * Creates an engine on `dataset` (folder or http(s) URL). Native DuckDB is
 * the default for folders; URLs always use DuckDB-WASM (native DuckDB would
 * need the httpfs extension).
 */
export function createNodeEngine(dataset: string, backend?: BackendName): ClimateEngine {
  const isUrl = /^https?:\/\//i.test(dataset);
  const use = backend ?? (isUrl ? 'wasm' : 'native');
  return createClimateEngine({
    dataset: locationOf(dataset),
    openSqlBackend: use === 'native' ? openNative : openWasm,
    openByteSource: openLocalOrHttpSource,
  });
}
