/**
 * Station SQL on DuckDB-WASM in a web page (`climate-query/sql-wasm`).
 * DuckDB-WASM is an optional peer: an app that never imports this module
 * never bundles or downloads it, and one that does loads it only on the
 * first SQL call (one shared promise).
 *
 * DuckDB-WASM reads no Parquet offline (its Parquet extension is fetched
 * from DuckDB's site), so it is handed rows the engine already read: as CSV
 * text registered in its in-memory file system — its CSV reader is built
 * in, and JavaScript's shortest round-trip number text parses back to the
 * same doubles. Every session reopens a fresh in-memory database.
 */
import {
  AsyncDuckDB,
  VoidLogger,
  selectBundle,
  type AsyncDuckDBConnection,
  type DuckDBBundles,
} from '@duckdb/duckdb-wasm';
import {
  LOCKDOWN_SQL,
  oneSessionAtATime,
  tableColumns,
  type SqlRunner,
  type SqlSession,
  type SqlValue,
  type StationTable,
} from './station-sql.ts';

/**
 * Where DuckDB-WASM's files are. With Vite:
 * ```ts
 * import mvpWasm from '@duckdb/duckdb-wasm/dist/duckdb-mvp.wasm?url';
 * import mvpWorker from '@duckdb/duckdb-wasm/dist/duckdb-browser-mvp.worker.js?url';
 * import ehWasm from '@duckdb/duckdb-wasm/dist/duckdb-eh.wasm?url';
 * import ehWorker from '@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js?url';
 * createDuckDbWasmRunner({ mvp: { mainModule: mvpWasm, mainWorker: mvpWorker }, eh: { mainModule: ehWasm, mainWorker: ehWorker } });
 * ```
 * Serve them from your own origin: nothing is fetched from a CDN.
 */
export type DuckDbWasmBundles = DuckDBBundles;

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
const csvCell = (v: string | number | null): string => {
  if (v === null) return '';
  if (typeof v === 'number') return String(v);
  return /[",\n\r]/.test(v) || v === '' ? `"${v.replace(/"/g, '""')}"` : v;
};

/** The observations and stations as CSV texts (header row, empty cell for null). */
function tableCsv(table: StationTable): { observations: string; stations: string } {
  const cols = tableColumns(table);
  const { stationId, time, values } = table.observations;
  const series = table.dataTypes.map((t) => values[t]!);
  const lines = [cols.observations.map(([n]) => n).join(',')];
  for (let i = 0; i < time.length; i++) {
    let line = `${csvCell(stationId[i]!)},${time[i]!}`;
    for (const s of series) line += `,${csvCell(s[i] ?? null)}`;
    lines.push(line);
  }
  const stations = [
    cols.stations.map(([n]) => n).join(','),
    ...table.stations.map((s) => [s.id, s.name, s.lat, s.lon, s.elevation].map((v) => csvCell(v)).join(',')),
  ];
  return { observations: `${lines.join('\n')}\n`, stations: `${stations.join('\n')}\n` };
}

/** The CREATE TABLE statement reading a registered CSV file with exactly these columns. */
function createFromCsv(name: string, file: string, columns: Array<[string, string]>): string {
  const spec = columns.map(([n, t]) => `${literal(n)}: ${literal(t)}`).join(', ');
  return `CREATE TABLE ${ident(name)} AS SELECT * FROM read_csv(${literal(file)}, header = true, delim = ',', quote = '"', escape = '"', columns = {${spec}})`;
}

/** Options of {@link createDuckDbWasmRunner}. */
export interface DuckDbWasmOptions {
  /** Creates DuckDB's worker from its script URL (default `new Worker(url)`); a page with a strict CSP may need a blob URL. */
  createWorker?: (url: string) => Worker;
}

/** A {@link SqlRunner} on DuckDB-WASM: started on the first session, one session at a time. */
export function createDuckDbWasmRunner(bundles: DuckDbWasmBundles, options: DuckDbWasmOptions = {}): SqlRunner {
  let started: Promise<AsyncDuckDB> | undefined;
  const start = () =>
    (started ??= (async () => {
      const bundle = await selectBundle(bundles);
      if (!bundle.mainWorker) throw new Error('The DuckDB-WASM bundle names no worker script (mainWorker).');
      const worker = options.createWorker ? options.createWorker(bundle.mainWorker) : new Worker(bundle.mainWorker);
      const db = new AsyncDuckDB(new VoidLogger(), worker);
      await db.instantiate(bundle.mainModule, bundle.pthreadWorker);
      return db;
    })().catch((err: unknown) => {
      started = undefined;
      throw err;
    }));

  async function open(table: StationTable, signal?: AbortSignal): Promise<SqlSession> {
    const db = await start();
    signal?.throwIfAborted();
    // A fresh database: nothing of an earlier session (tables, locked settings) survives.
    await db.open({ path: ':memory:', query: { castBigIntToDouble: true } });
    const con = await db.connect();
    try {
      const csv = tableCsv(table);
      const cols = tableColumns(table);
      await db.registerFileText('cq_observations.csv', csv.observations);
      await db.registerFileText('cq_stations.csv', csv.stations);
      await con.query(createFromCsv('observations', 'cq_observations.csv', cols.observations));
      await con.query(createFromCsv('stations', 'cq_stations.csv', cols.stations));
      await db.dropFiles();
      for (const s of LOCKDOWN_SQL) await con.query(s);
    } catch (err) {
      await con.close();
      throw err;
    }
    return {
      query: (sql, maxRows, s) => runQuery(con, sql, maxRows, s),
      close: () => con.close(),
    };
  }

  return { session: oneSessionAtATime(open) };
}

async function runQuery(
  con: AsyncDuckDBConnection,
  sql: string,
  maxRows: number,
  signal?: AbortSignal,
): Promise<SqlValue[][]> {
  signal?.throwIfAborted();
  const stop = () => void con.cancelSent();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    const prepared = await con.prepare(sql);
    try {
      const reader = await prepared.send();
      const rows: SqlValue[][] = [];
      for await (const batch of reader) {
        const columns = Array.from({ length: batch.numCols }, (_, c) => batch.getChildAt(c));
        for (let r = 0; r < batch.numRows && rows.length < maxRows; r++) {
          rows.push(columns.map((col) => toJson(col?.get(r))));
        }
        if (rows.length >= maxRows) break;
      }
      return rows;
    } finally {
      await prepared.close();
    }
  } finally {
    signal?.removeEventListener('abort', stop);
  }
}

/** Values of the canonical query are DOUBLE, BOOLEAN or VARCHAR. */
function toJson(v: unknown): SqlValue {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'bigint') return Number(v);
  return String(v);
}
