/**
 * Typed errors with stable codes. Every invalid request, every missing
 * dataset and every internal fault becomes a {@link ClimateQueryError}; the
 * HTTP adapters turn it into `{"error":{"code","message","field"}}` with its
 * `status`. The codes are part of the public contract (docs/contract.md).
 */

/** Stable error codes. Never rename one; add new ones. */
export type ErrorCode =
  /** The body is not JSON, or not a JSON object. */
  | 'invalid_json'
  /** A required field is absent. */
  | 'missing_field'
  /** A field has the wrong type, or a value outside its allowed set or range. */
  | 'invalid_field'
  /** A field the endpoint does not use was sent (typo or wrong endpoint). */
  | 'unknown_field'
  /** A data type is not valid for the time scale, or a layer does not exist. */
  | 'unknown_data_type'
  /** A WKT text could not be parsed or describes an invalid geometry. */
  | 'invalid_wkt'
  /** More points, polygons, data types or vertices than the contract allows. */
  | 'limit_exceeded'
  /** A date is not in the format of its time scale. */
  | 'invalid_date'
  /** startDate is after endDate, or outside the layer's dates. */
  | 'invalid_date_range'
  /** The range holds more periods than one request may ask for. */
  | 'too_many_periods'
  /** A polygon sent to /api/polygon/ is larger than 2 km². */
  | 'polygon_too_large'
  /** The request body is larger than the accepted size. */
  | 'body_too_large'
  /** No endpoint at this path. */
  | 'not_found'
  /** The endpoint exists but only answers POST. */
  | 'method_not_allowed'
  /** The caller aborted the request. */
  | 'aborted'
  /** The dataset is missing, unreadable or inconsistent with its catalog. */
  | 'dataset_unavailable'
  /** No engine is reachable to answer (service worker without a page). */
  | 'engine_unavailable'
  /** The HTTP request itself is malformed (bad method token, bad header, Content-Length with Transfer-Encoding). */
  | 'bad_request'
  /** The client sent its request too slowly; the server stopped waiting. */
  | 'request_timeout'
  /** The request headers are larger than the server accepts. */
  | 'headers_too_large'
  /** A dataset file changed while it was being read (a redeploy): its size or ETag no longer match. */
  | 'dataset_changed'
  /** A read of the dataset, or the whole query, ran out of time (the message names the URL). */
  | 'upstream_timeout'
  /** A station SQL query is not one read-only query, or DuckDB refused it (the message is DuckDB's). */
  | 'invalid_sql'
  /** A station SQL query returns more rows than the request's cap. */
  | 'result_too_large'
  /** No SQL engine is available here (DuckDB-WASM not given to the app, @duckdb/node-api not installed). */
  | 'sql_unavailable'
  /** A bug: the engine failed in a way it did not expect. */
  | 'internal';

const STATUS: Record<ErrorCode, number> = {
  invalid_json: 400,
  missing_field: 400,
  invalid_field: 400,
  unknown_field: 400,
  unknown_data_type: 400,
  invalid_wkt: 400,
  limit_exceeded: 400,
  invalid_date: 400,
  invalid_date_range: 400,
  too_many_periods: 400,
  polygon_too_large: 400,
  body_too_large: 413,
  not_found: 404,
  method_not_allowed: 405,
  aborted: 499,
  dataset_unavailable: 503,
  engine_unavailable: 503,
  bad_request: 400,
  request_timeout: 408,
  headers_too_large: 431,
  dataset_changed: 409,
  upstream_timeout: 504,
  invalid_sql: 400,
  result_too_large: 400,
  sql_unavailable: 501,
  internal: 500,
};

/** Every code with its HTTP status, for documents that list them (the OpenAPI description). */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = STATUS;

/** The JSON body of every error response. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; field?: string };
}

/** An error with a stable `code`, the HTTP `status` it maps to and, for invalid input, the `field` at fault. */
export class ClimateQueryError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly field: string | undefined;

  constructor(code: ErrorCode, message: string, options: { field?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ClimateQueryError';
    this.code = code;
    this.status = STATUS[code];
    this.field = options.field;
  }

  /** The response body for this error. */
  toBody(): ErrorBody {
    const error: ErrorBody['error'] = { code: this.code, message: this.message };
    if (this.field !== undefined) error.field = this.field;
    return { error };
  }
}

/** Shorthand for a 400 error about one request field. */
export function fieldError(code: ErrorCode, field: string, message: string): ClimateQueryError {
  return new ClimateQueryError(code, message, { field });
}

/** Wraps anything thrown into a ClimateQueryError; unknown faults become `internal`. */
export function toClimateQueryError(err: unknown): ClimateQueryError {
  if (err instanceof ClimateQueryError) return err;
  if (isAbortError(err)) return new ClimateQueryError('aborted', 'The request was aborted.', { cause: err });
  const message = err instanceof Error ? err.message : String(err);
  return new ClimateQueryError('internal', `Internal error: ${message}`, { cause: err });
}

function isAbortError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'AbortError';
}

/** Throws `aborted` when the signal has fired; call between steps of a query. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new ClimateQueryError('aborted', 'The request was aborted.', { cause: signal.reason });
  }
}
