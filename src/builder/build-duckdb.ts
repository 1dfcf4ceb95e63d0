/**
 * Native DuckDB as the station builds use it: opened with a memory limit
 * and a temp directory to spill to, no extension downloads, and the two
 * quoting helpers every statement is written with. The observations never
 * pass through JavaScript; only summaries come back ({@link rows}).
 */
import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * Memory DuckDB may use while building or indexing; beyond it, it spills to a temp directory.
 * The process's peak RSS runs 0.5–1 GB above it (DuckDB allocations outside its buffer pool,
 * Node): 1 GB keeps a 43 M-row hourly build under 3 GB (1.5 GB: 3.8 GB before the derivation
 * was batched).
 */
export const BUILD_MEMORY_LIMIT = '1GB';

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
    memory_limit: BUILD_MEMORY_LIMIT,
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
