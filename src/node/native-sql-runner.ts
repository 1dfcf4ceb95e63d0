/**
 * Station SQL on native DuckDB (`@duckdb/node-api`, an optional peer): a
 * fresh in-memory database per query, filled with an appender (no files,
 * no extensions), then locked down before the user's query runs.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import {
  LOCKDOWN_SQL,
  oneSessionAtATime,
  tableColumns,
  type SqlRunner,
  type SqlSession,
  type SqlValue,
  type StationTable,
} from '../sql/station-sql.ts';
import { ClimateQueryError } from '../contract/errors.ts';
import { missingPackageMessage } from './optional-packages.ts';

/**
 * `@duckdb/node-api`, loaded on the first query, not at import: climate-query/node must import (and
 * its engine answer the endpoints) without this optional peer. Missing, it is `sql_unavailable`
 * with the command that installs it.
 */
async function nativeDuckDB(): Promise<typeof import('@duckdb/node-api')> {
  try {
    return await import('@duckdb/node-api');
  } catch (err) {
    const message = missingPackageMessage(err, 'sql');
    throw message ? new ClimateQueryError('sql_unavailable', message, { cause: err }) : err;
  }
}

/** Options of {@link createNativeSqlRunner}. */
export interface NativeSqlOptions {
  /** DuckDB's memory limit for one query (default '1GB'). */
  memoryLimit?: string;
  /** Threads (default 2). */
  threads?: number;
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** A {@link SqlRunner} on native DuckDB; sessions run one at a time. */
export function createNativeSqlRunner(options: NativeSqlOptions = {}): SqlRunner {
  return { session: oneSessionAtATime((table, signal) => openSession(table, options, signal)) };
}

async function openSession(table: StationTable, options: NativeSqlOptions, signal?: AbortSignal): Promise<SqlSession> {
  signal?.throwIfAborted();
  const { DuckDBInstance } = await nativeDuckDB();
  const instance = await DuckDBInstance.create(':memory:', {
    threads: String(options.threads ?? 2),
    memory_limit: options.memoryLimit ?? '1GB',
    // Nothing here may reach for the network (docs/decisions/0002-platform-facts.md §DuckDB: a failed autoload can hang).
    autoload_known_extensions: 'false',
    autoinstall_known_extensions: 'false',
  });
  const con = await instance.connect();
  try {
    await load(con, table);
    // Zoned times print in UTC, as DuckDB-WASM (no ICU) prints them; ICU may be absent here too.
    await con.run("SET TimeZone = 'UTC'").catch(() => undefined);
    for (const s of LOCKDOWN_SQL) await con.run(s);
  } catch (err) {
    con.closeSync();
    instance.closeSync();
    throw err;
  }
  const interruptOn = (s?: AbortSignal) => {
    const stop = () => con.interrupt();
    s?.addEventListener('abort', stop, { once: true });
    return () => s?.removeEventListener('abort', stop);
  };
  return {
    async query(sql, maxRows, s) {
      // An abort before this point has no listener to fire: check it first.
      s?.throwIfAborted();
      const done = interruptOn(s);
      try {
        const prepared = await con.prepare(sql);
        const result = await prepared.stream();
        const rows: SqlValue[][] = [];
        while (rows.length < maxRows) {
          const chunk = await result.fetchChunk();
          if (!chunk || chunk.rowCount === 0) break;
          for (const r of chunk.getRows()) {
            if (rows.length >= maxRows) break;
            rows.push(r.map(toJson));
          }
        }
        return rows;
      } finally {
        done();
      }
    },
    async close() {
      con.closeSync();
      instance.closeSync();
    },
  };
}

/** Values of the canonical query are DOUBLE, BOOLEAN or VARCHAR. */
function toJson(v: unknown): SqlValue {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string') return v;
  return String(v);
}

async function load(con: DuckDBConnection, table: StationTable): Promise<void> {
  const cols = tableColumns(table);
  // Times arrive as text and are cast once loaded: the appender's own timestamp type is not needed.
  await con.run(
    `CREATE TABLE raw_observations (${cols.observations.map(([n, t]) => `${ident(n)} ${t === 'DOUBLE' ? 'DOUBLE' : 'VARCHAR'}`).join(', ')})`,
  );
  const app = await con.createAppender('raw_observations');
  const { stationId, time, values } = table.observations;
  const columns = table.dataTypes.map((t) => values[t]!);
  for (let i = 0; i < time.length; i++) {
    app.appendVarchar(stationId[i]!);
    app.appendVarchar(time[i]!);
    for (const col of columns) {
      const v = col[i];
      if (v === null || v === undefined) app.appendNull();
      else app.appendDouble(v);
    }
    app.endRow();
  }
  app.closeSync();
  const select = cols.observations.map(([n, t]) =>
    t === 'DOUBLE' || t === 'VARCHAR' ? ident(n) : `CAST(${ident(n)} AS ${t}) AS ${ident(n)}`,
  );
  await con.run(
    `CREATE TABLE observations AS SELECT ${select.join(', ')} FROM raw_observations ORDER BY station_id, time`,
  );
  await con.run('DROP TABLE raw_observations');
  await con.run(`CREATE TABLE stations (${cols.stations.map(([n, t]) => `${ident(n)} ${t}`).join(', ')})`);
  const st = await con.createAppender('stations');
  for (const s of table.stations) {
    st.appendVarchar(s.id);
    st.appendVarchar(s.name);
    st.appendDouble(s.lat);
    st.appendDouble(s.lon);
    if (s.elevation === null) st.appendNull();
    else st.appendDouble(s.elevation);
    st.endRow();
  }
  st.closeSync();
}
