/** An engine for Node: a dataset folder or URL, read through local files or HTTP Range requests. */
import { createClimateEngine, type ClimateEngine } from '../engine/engine.ts';
import { locationOf } from './file-location.ts';
import { nodeForeign } from './foreign-guard.ts';
import { ClimateQueryError } from '../contract/errors.ts';
import type { SqlRunner } from '../sql/station-sql.ts';
import { missingPackageMessage } from './optional-packages.ts';

/** Options of {@link createNodeEngine}. */
export interface NodeEngineOptions {
  /** Overall budget of one query in milliseconds (the engine's default when absent). */
  timeoutMs?: number | undefined;
  /** Follow symlinks out of a dataset folder (default: refused; see fileLocation). */
  followLinks?: boolean | undefined;
  /**
   * Origins (`https://host[:port]`) whose sources a catalog may name by URL and this engine reads
   * (src/node/foreign-guard.ts); none by default.
   */
  allowOrigins?: readonly string[] | undefined;
}

/** Creates an engine on `dataset` (folder or http(s) URL). */
export function createNodeEngine(dataset: string, options: NodeEngineOptions = {}): ClimateEngine {
  return createClimateEngine({
    dataset: locationOf(dataset, { followLinks: options.followLinks === true }),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    sqlRunner: nativeSqlRunner,
    foreign: nodeForeign(options.allowOrigins ?? []),
  });
}

let runner: Promise<SqlRunner> | undefined;

/** Native DuckDB for station SQL, loaded on first use (it is an optional peer). */
function nativeSqlRunner(): Promise<SqlRunner> {
  runner ??= import('./native-sql-runner.ts').then(
    (m) => m.createNativeSqlRunner(),
    (err: unknown) => {
      runner = undefined;
      const message = missingPackageMessage(err, 'sql');
      throw message ? new ClimateQueryError('sql_unavailable', message, { cause: err }) : err;
    },
  );
  return runner;
}
