/**
 * Read-only SQL over station records: the caller names stations, a time
 * scale and a date range; their rows are read from the Parquet archive by
 * the same reader the endpoints use, loaded into a fresh in-memory DuckDB
 * (DuckDB-WASM in the browser, native DuckDB in Node) as two tables, and
 * one SELECT runs over them.
 *
 * Everything here is shared by every adapter; a {@link SqlRunner} only
 * loads tables and runs prepared statements. Safety does not rest on
 * parsing SQL ourselves: the user's text runs as a subquery of one
 * prepared statement (so it must be a single query), in a database that
 * holds nothing but the loaded rows, with file access switched off and the
 * configuration locked before it runs, and no more than the row cap is
 * ever read from the result.
 */
import { ClimateQueryError, fieldError, throwIfAborted } from '../contract/errors.ts';
import { parseRange } from '../contract/periods.ts';
import { quote, truncate } from '../contract/quote.ts';
import { STATION_TIME_SCALES, STATION_TYPES, type StationTimeScale } from '../contract/station-data-types.ts';

/** What {@link StationSql.sql} is asked: the SELECT and the rows it runs over. */
export interface StationSqlRequest {
  /** One read-only query (SELECT, WITH … SELECT, FROM …, VALUES, PIVOT) over `observations` and `stations`. */
  sql: string;
  /** Station ids whose rows are loaded (1 to {@link SQL_LIMITS.stations}). */
  stations: string[];
  /** Time scale of the loaded rows. */
  timeScale: StationTimeScale;
  /** First and last period, in the contract's format for the time scale (`2024-01-01T00:00:00`, `2024-01-01`, `2024-01`). */
  startDate: string;
  endDate: string;
  /** Columns loaded besides station_id and time; default: every data type the dataset holds at this scale. */
  dataTypes?: string[];
  /** Most result rows (default {@link SQL_LIMITS.defaultRows}); a larger result is an error, not a cut-off answer. */
  maxRows?: number;
}

/** Limits of station SQL (docs/sql.md). */
export const SQL_LIMITS = {
  /** Stations loaded by one call: 50 stations × two years of hours is about 880,000 rows. */
  stations: 50,
  /** Result rows when the request does not say. */
  defaultRows: 10_000,
  /** Most result rows a request may ask for. */
  maxRows: 100_000,
  /** Longest SQL text. */
  sqlChars: 20_000,
} as const;

/** One result column: its name, its JSON type and the type DuckDB gave it. */
export interface SqlColumn {
  name: string;
  type: 'number' | 'boolean' | 'text';
  duckdbType: string;
}

/** A JSON value of a result cell. */
export type SqlValue = number | boolean | string | null;

/** The answer of a station SQL call. */
export interface StationSqlResult {
  columns: SqlColumn[];
  rows: SqlValue[][];
  /** What was loaded for the query to run over. */
  loaded: { stations: number; rows: number; timeScale: StationTimeScale; dataTypes: string[] };
}

/** The rows a query runs over, as the engine read them: column arrays, station id then time order. */
export interface StationTable {
  timeScale: StationTimeScale;
  dataTypes: string[];
  stations: Array<{ id: string; name: string; lat: number; lon: number; elevation: number | null }>;
  observations: {
    stationId: string[];
    /** SQL literal text: `yyyy-mm-dd hh:mm:ss` (hourly) or `yyyy-mm-dd` (daily; monthly: first of the month). */
    time: string[];
    values: Record<string, Array<number | null>>;
  };
}

/** A validated request: what to load, and the query. */
export interface StationTableRequest {
  stations: string[];
  timeScale: StationTimeScale;
  /** First and last period keys (response format). */
  first: string;
  last: string;
  /** Requested data types, or undefined for every type the dataset holds at this scale. */
  dataTypes: string[] | undefined;
}

/** One database session of a runner: the loaded tables, then statements. */
export interface SqlSession {
  /**
   * Prepares `sql` (one statement only: DuckDB refuses to prepare more), runs
   * it and returns at most `maxRows` rows; values are DOUBLE, BOOLEAN or
   * VARCHAR as JSON. An abort of `signal` interrupts DuckDB.
   */
  query(sql: string, maxRows: number, signal?: AbortSignal): Promise<SqlValue[][]>;
  /** Frees the session's database. */
  close(): Promise<void>;
}

/**
 * The narrow seam to a DuckDB: open a fresh database holding `table` (as
 * the tables `observations` and `stations`, see {@link tableColumns}) with file
 * access off and configuration locked. Runners serialise sessions.
 */
export interface SqlRunner {
  session(table: StationTable, signal?: AbortSignal): Promise<SqlSession>;
}

/**
 * Runs sessions one after another (one DuckDB database per runner): the
 * next `open` starts when the previous session is closed or failed to open.
 */
export function oneSessionAtATime(
  open: (table: StationTable, signal?: AbortSignal) => Promise<SqlSession>,
): SqlRunner['session'] {
  let queue: Promise<unknown> = Promise.resolve();
  return (table, signal) => {
    const opened = queue.then(() => open(table, signal));
    let release!: () => void;
    const closed = new Promise<void>((r) => (release = r));
    queue = opened.then(
      () => closed,
      () => undefined,
    );
    return opened.then(
      (s) => ({ query: s.query, close: () => s.close().finally(release) }),
      (err: unknown) => {
        release();
        throw err;
      },
    );
  };
}

/** The loaded tables' columns, for runners and docs. */
export function tableColumns(table: StationTable): {
  observations: Array<[string, string]>;
  stations: Array<[string, string]>;
} {
  return {
    observations: [
      ['station_id', 'VARCHAR'],
      ['time', table.timeScale === 'hourly' ? 'TIMESTAMP' : 'DATE'],
      ...table.dataTypes.map((t): [string, string] => [t, 'DOUBLE']),
    ],
    stations: [
      ['station_id', 'VARCHAR'],
      ['name', 'VARCHAR'],
      ['lat', 'DOUBLE'],
      ['lon', 'DOUBLE'],
      ['elevation', 'DOUBLE'],
    ],
  };
}

/** The settings every session applies after loading and before the user's query. */
export const LOCKDOWN_SQL = ['SET enable_external_access = false', 'SET lock_configuration = true'] as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const REQUEST_FIELDS = ['sql', 'stations', 'timeScale', 'startDate', 'endDate', 'dataTypes', 'maxRows'];

/** Checks a request's shape (no dataset needed); throws a 400 naming the field. */
export function validateSqlRequest(body: unknown): { sql: string; table: StationTableRequest; maxRows: number } {
  if (!isObject(body)) throw new ClimateQueryError('invalid_json', 'The SQL request must be a JSON object.');
  for (const key of Object.keys(body)) {
    if (!REQUEST_FIELDS.includes(key))
      throw fieldError(
        'unknown_field',
        truncate(key),
        `${truncate(key)} is not a field of a SQL request; it takes ${REQUEST_FIELDS.join(', ')}.`,
      );
  }
  const sql = body.sql;
  if (typeof sql !== 'string' || sql.trim() === '')
    throw fieldError(
      sql === undefined ? 'missing_field' : 'invalid_field',
      'sql',
      'sql must be the text of one SELECT query.',
    );
  if (sql.length > SQL_LIMITS.sqlChars)
    throw fieldError(
      'limit_exceeded',
      'sql',
      `sql is ${sql.length} characters; at most ${SQL_LIMITS.sqlChars} are accepted.`,
    );
  const stations = body.stations;
  if (!Array.isArray(stations) || stations.length === 0)
    throw fieldError(
      stations === undefined ? 'missing_field' : 'invalid_field',
      'stations',
      'stations must be a non-empty array of station ids.',
    );
  if (stations.length > SQL_LIMITS.stations)
    throw fieldError(
      'limit_exceeded',
      'stations',
      `stations lists ${stations.length} stations; at most ${SQL_LIMITS.stations} are loaded by one query.`,
    );
  stations.forEach((s, i) => {
    if (typeof s !== 'string' || s === '')
      throw fieldError(
        'invalid_field',
        `stations[${i}]`,
        `stations[${i}] must be a station id (text); got ${quote(s)}.`,
      );
  });
  if (new Set(stations).size !== stations.length)
    throw fieldError('invalid_field', 'stations', 'stations lists a station twice.');
  if (body.timeScale === undefined)
    throw fieldError('missing_field', 'timeScale', `timeScale is required: one of ${STATION_TIME_SCALES.join(', ')}.`);
  if (!STATION_TIME_SCALES.includes(body.timeScale as StationTimeScale))
    throw fieldError(
      'invalid_field',
      'timeScale',
      `timeScale must be one of ${STATION_TIME_SCALES.join(', ')}; got ${quote(body.timeScale)}.`,
    );
  const timeScale = body.timeScale as StationTimeScale;
  if (body.startDate === undefined) throw fieldError('missing_field', 'startDate', 'startDate is required.');
  if (body.endDate === undefined) throw fieldError('missing_field', 'endDate', 'endDate is required.');
  const range = parseRange(timeScale, body.startDate, body.endDate);
  let dataTypes: string[] | undefined;
  if (body.dataTypes !== undefined) {
    const types = body.dataTypes;
    if (!Array.isArray(types) || types.length === 0)
      throw fieldError(
        'invalid_field',
        'dataTypes',
        'dataTypes must be a non-empty array of data type names, or left out for all.',
      );
    types.forEach((t, i) => {
      if (typeof t !== 'string' || !STATION_TYPES[timeScale].includes(t)) {
        throw fieldError(
          'unknown_data_type',
          `dataTypes[${i}]`,
          `dataTypes[${i}] ${quote(t)} is not a ${timeScale} data type; they are ${STATION_TYPES[timeScale].join(', ')}.`,
        );
      }
    });
    dataTypes = [...new Set(types as string[])];
  }
  let maxRows: number = SQL_LIMITS.defaultRows;
  if (body.maxRows !== undefined) {
    const m = body.maxRows;
    if (typeof m !== 'number' || !Number.isInteger(m) || m < 1 || m > SQL_LIMITS.maxRows)
      throw fieldError(
        'invalid_field',
        'maxRows',
        `maxRows must be a whole number from 1 to ${SQL_LIMITS.maxRows}; got ${quote(m)}.`,
      );
    maxRows = m;
  }
  return {
    sql,
    table: {
      stations: stations as string[],
      timeScale,
      first: range.keys[0]!,
      last: range.keys[range.keys.length - 1]!,
      dataTypes,
    },
    maxRows,
  };
}

/** First words a read-only query may start with (after comments and opening parentheses). */
const QUERY_STARTS = new Set(['select', 'with', 'from', 'values', 'pivot', 'unpivot', 'table']);

/**
 * The user's text as the subquery of our own SELECT. A trailing `;` is
 * dropped; anything else that is not one query fails to prepare. The
 * newlines end a trailing `--` comment before our closing parenthesis.
 */
export function wrapQuery(text: string): string {
  const body = text.trim().replace(/;\s*$/, '');
  const first = body
    .replace(/^(\s+|--[^\n]*\n?|\/\*[\s\S]*?\*\/|\()*/, '')
    .match(/^[A-Za-z_]+/)?.[0]
    ?.toLowerCase();
  if (!first || !QUERY_STARTS.has(first)) {
    throw fieldError(
      'invalid_sql',
      'sql',
      `Only a read-only query is run here (SELECT, WITH … SELECT, FROM …, VALUES); this one starts with ${quote(first ?? body.slice(0, 20))}.`,
    );
  }
  return `SELECT * FROM (\n${body}\n) AS q`;
}

const identifier = (name: string) => `"${name.replace(/"/g, '""')}"`;
const NUMERIC =
  /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|DOUBLE|DECIMAL(\(\d+,\s*\d+\))?)$/;

/** The JSON type of a DuckDB type: numbers become DOUBLE, booleans stay, everything else (dates, times, lists) is text as DuckDB prints it. */
export function jsonTypeOf(duckdbType: string): SqlColumn['type'] {
  return NUMERIC.test(duckdbType) ? 'number' : duckdbType === 'BOOLEAN' ? 'boolean' : 'text';
}

/**
 * The final statement: every column cast to DOUBLE, BOOLEAN or VARCHAR, so
 * the browser's and Node's DuckDB hand back the same JSON values.
 */
export function canonicalQuery(wrapped: string, columns: readonly SqlColumn[]): string {
  const cast = columns.map((c) => {
    const target = c.type === 'number' ? 'DOUBLE' : c.type === 'boolean' ? 'BOOLEAN' : 'VARCHAR';
    return `CAST(r.${identifier(c.name)} AS ${target}) AS ${identifier(c.name)}`;
  });
  return `SELECT ${cast.join(', ')} FROM (\n${wrapped}\n) AS r`;
}

/** Turns a DuckDB error raised by the user's query into a 400 carrying DuckDB's message. */
export function sqlError(err: unknown): ClimateQueryError {
  if (err instanceof ClimateQueryError) return err;
  const raw = err instanceof Error ? err.message : String(err);
  // DuckDB repeats the "LINE n:" context; one copy is enough.
  const message = raw.replace(/(\n\nLINE \d+:[\s\S]*?)\1+/g, '$1').trim();
  return new ClimateQueryError('invalid_sql', `DuckDB could not run the query: ${message.slice(0, 2000)}`, {
    field: 'sql',
    cause: err,
  });
}

/**
 * Runs one station SQL request: validate, load the rows through `load`
 * (the engine's station reader), then describe and run the query in a
 * fresh session of `runner`.
 */
export async function runStationSql(
  body: unknown,
  load: (request: StationTableRequest, signal?: AbortSignal) => Promise<StationTable>,
  runner: () => Promise<SqlRunner>,
  signal?: AbortSignal,
): Promise<StationSqlResult> {
  const { sql, table: tableRequest, maxRows } = validateSqlRequest(body);
  const wrapped = wrapQuery(sql);
  const [table, sqlRunner] = await Promise.all([load(tableRequest, signal), runner()]);
  throwIfAborted(signal);
  const session = await sqlRunner.session(table, signal);
  try {
    let columns: SqlColumn[];
    let rows: SqlValue[][];
    try {
      // DESCRIBE's rows start with column_name, column_type (VARCHAR in every DuckDB build).
      const described = await session.query(`DESCRIBE ${wrapped}`, 10_000, signal);
      columns = described.map(([name, type]) => ({
        name: String(name),
        duckdbType: String(type),
        type: jsonTypeOf(String(type)),
      }));
      // One row past the cap tells "exactly the cap" from "more than the cap".
      rows = await session.query(`${canonicalQuery(wrapped, columns)}\nLIMIT ${maxRows + 1}`, maxRows + 1, signal);
    } catch (err) {
      if (signal?.aborted) throw new ClimateQueryError('aborted', 'The SQL query was aborted.', { cause: err });
      throw sqlError(err);
    }
    if (rows.length > maxRows) {
      throw new ClimateQueryError(
        'result_too_large',
        `The query returns more than ${maxRows} rows. Aggregate (GROUP BY), add a LIMIT, or raise maxRows (at most ${SQL_LIMITS.maxRows}).`,
        { field: 'sql' },
      );
    }
    return {
      columns,
      rows,
      loaded: {
        stations: table.stations.length,
        rows: table.observations.time.length,
        timeScale: table.timeScale,
        dataTypes: table.dataTypes,
      },
    };
  } finally {
    await session.close();
  }
}
