/** Messages between a page and the engine Worker (and the service-worker relay). */
import type { ApiRequest } from '../engine/router.ts';
import type { ErrorBody } from '../contract/errors.ts';
import type { StationTable, StationTableRequest } from '../sql/station-sql.ts';

/** Page → engine worker. */
export type ToWorker =
  | { type: 'init'; dataset: string }
  | { type: 'request'; id: number; request: ApiRequest }
  /** The rows station SQL runs over (the page's DuckDB-WASM runs the query). */
  | { type: 'table'; id: number; request: StationTableRequest }
  | { type: 'abort'; id: number };

/**
 * Engine worker → page. Answers travel as JSON text: a year of hourly values
 * for ten points is 9.5 MB of JSON, and copying 87,600 small objects between
 * threads took about 200 ms where stringify, copying one string and parse take
 * about 120 ms; a service-worker relay passes the text on untouched.
 */
export type FromWorker =
  | { type: 'response'; id: number; status: number; json: string }
  | { type: 'table'; id: number; table: StationTable }
  | { type: 'table'; id: number; error: ErrorBody['error'] };

/** Service worker → page: answer this request on `ports[0]`. */
export interface RelayRequest {
  type: 'climate-query:request';
  request: ApiRequest;
}

/** Page → service worker on the relay port: first an acknowledgement, then the answer (as JSON text). */
export type RelayReply = { type: 'ack' } | { type: 'response'; status: number; json: string };
