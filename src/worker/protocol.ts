/** Messages between a page and the engine Worker (and the service-worker relay), and how a relayed reply is read. */
import type { ApiJsonResponse, ApiRequest, ApiResponse } from '../engine/router.ts';
import { ClimateQueryError, type ErrorBody } from '../contract/errors.ts';
import type { StationTable, StationTableRequest } from '../sql/station-sql.ts';
import type { Catalog } from '../dataset/catalog.ts';
import type { PeriodTable } from '../contract/period-table.ts';
import type { Transfer } from '../io/link-meter.ts';
import type { IndexedStation } from '../stations/station-index.ts';
import type { LayerGrid, LayerGridRequest } from '../rasters/raster-engine.ts';
import {
  packTables,
  unpackTables,
  type PackedTable,
  type SentTable,
  type TablePart,
  type TablesAhead,
  type TablesReceived,
} from './packed-tables.ts';

/**
 * The engine methods a page calls besides the routes, with their arguments
 * and results: the page shows the dataset only through these, so every file
 * is read once, in the Worker (the catalog and the station index by the
 * engine client for it, as it starts: `catalog` and `file` below).
 */
export interface WorkerCalls {
  catalog: { args: []; result: Catalog };
  stations: { args: []; result: IndexedStation[] };
  layerGrid: { args: [LayerGridRequest]; result: LayerGrid };
  rangeSupport: { args: []; result: boolean | null };
  /** The rows station SQL runs over (the page's DuckDB-WASM runs the query). */
  stationTable: { args: [StationTableRequest]; result: StationTable };
}

/** A name of {@link WorkerCalls}. */
export type WorkerCall = keyof WorkerCalls;

/** The names the worker answers, for checking a message. */
export const WORKER_CALLS: readonly WorkerCall[] = ['catalog', 'stations', 'layerGrid', 'rangeSupport', 'stationTable'];

/**
 * How long an engine Worker waits for a file its page reads ahead (`readAhead`) before reading
 * it itself. The page's reads have the engine's own time limits (no first byte in 10 s, or 10 s
 * without a byte); this bounds a page that never answers.
 */
export const READ_AHEAD_WAIT_MS = 60_000;

/** Page → engine worker. */
export type ToWorker =
  /** `readAhead`: the page reads catalog.json (and the station index) itself and sends them. */
  | { type: 'init'; dataset: string; readAhead?: boolean }
  /**
   * The catalog's text as the page read it (null when it could not: the Worker then reads it),
   * and the files, as the catalog lists them, whose bytes follow in `file` messages.
   */
  | { type: 'catalog'; text: string | null; files?: string[] }
  /** A file announced with the catalog: its bytes (null: not read) and the times of the page's reads. */
  | { type: 'file'; path: string; bytes: Uint8Array | null; transfers: Transfer[] }
  /** `as: 'json'`: answer with the body as JSON text (for relaying it on), else as an object. */
  | { type: 'request'; id: number; request: ApiRequest; as?: 'json' | 'object' }
  | { [M in WorkerCall]: { type: 'call'; id: number; method: M; args: WorkerCalls[M]['args'] } }[WorkerCall]
  | { type: 'abort'; id: number };

/**
 * Engine worker → page. An answer the page uses travels as an object
 * (structured clone) with its period tables cut out and sent as columns
 * (packed-tables.ts, {@link responseMessage}); one a service worker relays
 * travels as the JSON text it will send, made once in the Worker. Measured
 * on a 10-point hourly year (9.5 MB of JSON) in Chromium: text for the page
 * as well saved no time (1.03 s vs 1.02 s cold at 40 ms) and raised the
 * renderer's peak memory from 328 to 441 MiB. A `part` carries one period
 * table of an object answer still being made (packed-tables.ts,
 * TablesAhead); the `response` that names it comes after it.
 */
export type FromWorker =
  | { type: 'part'; id: number; table: TablePart }
  | { type: 'response'; id: number; status: number; body: unknown; tables?: Array<PackedTable | SentTable> }
  | { type: 'response'; id: number; status: number; json: string }
  | { type: 'result'; id: number; value: unknown }
  | { type: 'result'; id: number; error: ErrorBody['error'] };

/**
 * The message that carries `response` to the page (as JSON text with `as: 'json'`), and the
 * buffers to transfer with it; tables in `ahead` were sent as parts and are named, not sent again.
 */
export function responseMessage(
  id: number,
  response: ApiResponse,
  as: 'json' | 'object' = 'object',
  ahead?: TablesAhead,
): { message: Extract<FromWorker, { type: 'response' }>; transfer: ArrayBuffer[] } {
  if (as === 'json')
    return {
      message: { type: 'response', id, status: response.status, json: JSON.stringify(response.body) },
      transfer: [],
    };
  const { body, tables, transfer } = packTables(response.body, ahead);
  return {
    message: { type: 'response', id, status: response.status, body, ...(tables.length ? { tables } : {}) },
    transfer,
  };
}

/** The message that sends `table` ahead of the answer to request `id` (TablesAhead), and its buffers. */
export function partMessage(
  id: number,
  table: PeriodTable,
  ahead: TablesAhead,
): { message: Extract<FromWorker, { type: 'part' }>; transfer: ArrayBuffer[] } {
  const { part, transfer } = ahead.send(table);
  return { message: { type: 'part', id, table: part }, transfer };
}

/**
 * The body a `response` message carries, its tables put back (the page's side of
 * {@link responseMessage}); `received`: the parts of this answer that came ahead of it.
 */
export function bodyOf(message: Extract<FromWorker, { type: 'response' }>, received?: TablesReceived): unknown {
  if ('json' in message) return JSON.parse(message.json) as unknown;
  return message.tables ? unpackTables(message.body, message.tables, received) : message.body;
}

/** Service worker → page: answer this request on `ports[0]`. */
export interface RelayRequest {
  type: 'climate-query:request';
  request: ApiRequest;
}

/** Page → service worker on the relay port: first an acknowledgement, then the answer (as JSON text). */
export type RelayReply = { type: 'ack' } | { type: 'response'; status: number; json: string };

/**
 * The page's answer as it arrived. A new service worker takes over pages
 * still running older code (skipWaiting, clients.claim), whose replies held
 * `{ response: { status, body } }`; those are still understood, and anything
 * else is an `engine_unavailable` error that says to reload, never an empty 200.
 */
export function relayedAnswer(reply: Extract<RelayReply, { type: 'response' }>): ApiJsonResponse {
  const r = reply as { status?: unknown; json?: unknown; response?: { status?: unknown; body?: unknown } };
  if (typeof r.status === 'number' && typeof r.json === 'string') return { status: r.status, json: r.json };
  if (typeof r.response?.status === 'number')
    return { status: r.response.status, json: JSON.stringify(r.response.body) };
  const e = new ClimateQueryError(
    'engine_unavailable',
    'The page running the query engine answered in a form this service worker does not know (the app was updated while it was open). Reload the page and retry.',
  );
  return { status: e.status, json: JSON.stringify(e.toBody()) };
}
