/** An engine for Node: a dataset folder or URL, read through local files or HTTP Range requests. */
import { createClimateEngine, type ClimateEngine } from '../engine/engine.ts';
import { openLocalOrHttpSource } from '../rasters/file-source.ts';
import { locationOf } from './file-location.ts';

/** Options of {@link createNodeEngine}. */
export interface NodeEngineOptions {
  /** Overall budget of one query in milliseconds (the engine's default when absent). */
  timeoutMs?: number | undefined;
}

/** Creates an engine on `dataset` (folder or http(s) URL). */
export function createNodeEngine(dataset: string, options: NodeEngineOptions = {}): ClimateEngine {
  return createClimateEngine({
    dataset: locationOf(dataset),
    openByteSource: openLocalOrHttpSource,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  });
}
