/**
 * Native DuckDB as the station builds use it: opened with a memory limit
 * and a temp directory to spill to, no extension downloads, and the two
 * quoting helpers every statement is written with. The observations never
 * pass through JavaScript; only summaries come back ({@link rows}).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { BuildError } from './build-error.ts';

/**
 * Memory DuckDB may use while building or indexing; beyond it, it spills to a temp directory.
 * The process's peak RSS runs 0.5–1 GB above it (DuckDB's allocations outside its buffer pool,
 * Node). Measured on an import of 60 GHCNh stations × 10 years (5.3 M hourly rows): 1 GB peaked
 * at 1.45–1.72 GB RSS, 600 MB at 1.14 GB in 122 s (no slower); a network of 600 × 10 (53 M rows)
 * went to 2.33 GB at 1 GB (docs/performance.md).
 */
export const BUILD_MEMORY_LIMIT = '600MB';

/**
 * The memory limit builds give DuckDB: {@link BUILD_MEMORY_LIMIT}, or what the operator states in
 * `CLIMATE_QUERY_BUILD_MEMORY` (`512MB`, `2GB`) for a smaller or larger machine. A value that is
 * not a size is refused, never guessed.
 */
export function buildMemoryLimit(env: Record<string, string | undefined> = process.env): string {
  const stated = env.CLIMATE_QUERY_BUILD_MEMORY?.trim();
  if (stated === undefined || stated === '') return BUILD_MEMORY_LIMIT;
  const m = /^(\d+(?:\.\d+)?)\s*(MB|GB)$/i.exec(stated);
  const mb = m ? Number(m[1]) * (m[2]!.toUpperCase() === 'GB' ? 1000 : 1) : Number.NaN;
  if (!(mb >= 256 && mb <= 1_000_000))
    throw new BuildError(
      'invalid_option',
      `CLIMATE_QUERY_BUILD_MEMORY is "${stated}"; give a size from 256MB, such as 768MB or 2GB.`,
      { option: 'CLIMATE_QUERY_BUILD_MEMORY' },
    );
  return `${Math.round(mb)}MB`;
}

/** SQL string literal. */
export const lit = (s: string): string => `'${s.replace(/'/g, "''")}'`;
/** SQL identifier. */
export const ident = (s: string): string => `"${s.replace(/"/g, '""')}"`;

/** Opens native DuckDB with bounded memory, spilling to `tempDir`, and no extension downloads. */
export async function openBuildDuckDB(tempDir: string): Promise<{ con: DuckDBConnection; close(): void }> {
  // Loaded here, not at the top: climate-query/node must import without this optional peer.
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:', {
    threads: '2',
    memory_limit: buildMemoryLimit(),
    temp_directory: tempDir,
    preserve_insertion_order: 'true',
  });
  const con = await db.connect();
  await con.run(`SET autoload_known_extensions = false`);
  await con.run(`SET autoinstall_known_extensions = false`);
  return {
    con,
    close() {
      con.closeSync();
      db.closeSync();
    },
  };
}

/** The rows of a query as plain objects (for summaries: counts, spans, ids). */
export async function rows(con: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  return (await con.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
}
