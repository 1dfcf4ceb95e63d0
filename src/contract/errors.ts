/**
 * Typed errors with stable codes. Every invalid request, every missing
 * dataset and every internal fault becomes a {@link ClimateQueryError}; the
 * HTTP adapters turn it into `{"error":{"code","message","field","params"}}`
 * with its `status`. The codes are part of the public contract
 * (docs/contract.md). `field` and `params` are the error as data: a client
 * (this project's app among them) makes its own words from the code, the
 * JSON pointer to the value at fault and the params, never by reading the
 * message, so rewording a message changes no client.
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
  /**
   * A raster query would read more bytes than the engine allows (a published store whose chunks do
   * not suit the query); planned from the chunk shapes before any data is read.
   */
  | 'query_too_costly'
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
  query_too_costly: 422,
  sql_unavailable: 501,
  internal: 500,
};

/** Every code with its HTTP status, for documents that list them (the OpenAPI description). */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = STATUS;

/**
 * The values an error is about, by name: `index` (0-based item of wkts or
 * of a list), `got`, `allowed`, `max`, `reason`… Each code's names are
 * listed in docs/contract.md and the OpenAPI description.
 */
export type ErrorParams = Readonly<Record<string, string | number | boolean | readonly string[]>>;

/**
 * The params each code may carry, with what they mean: described once, for
 * the OpenAPI description and docs/contract.md; a test checks that every
 * param a validator sends is listed here.
 */
export const ERROR_PARAMS: Readonly<Partial<Record<ErrorCode, Readonly<Record<string, string>>>>> = {
  invalid_field: {
    allowed: 'The values the field may take.',
    got: 'What was sent, quoted and shortened.',
    min: 'The smallest number allowed.',
    max: 'The largest number allowed.',
  },
  unknown_field: { allowed: 'The fields this endpoint takes at that level.' },
  unknown_data_type: {
    got: 'The name sent, shortened.',
    timeScale: 'The time scale it was asked for.',
    validFor: 'The time scales the name is valid for (empty: none).',
    allowed: 'The names allowed.',
  },
  invalid_wkt: {
    index: 'The item of wkts at fault, from 0 (items are the texts between ";").',
    part: 'Where in the item: "outer ring", "hole 1", "part 2, outer ring".',
    reason:
      'What is wrong with it, in the words the message ends with; "empty" for an empty wkts; "swapped" for an item outside the dataset that lies inside it with its coordinates swapped (latitude written first).',
    max: 'With reason "empty": how many items the endpoint takes.',
    swapped: 'With reason "swapped": the item with its coordinates swapped.',
  },
  limit_exceeded: {
    of: 'What was counted: "points", "polygons", "vertices", "dataTypes", "indices", or "pixels" (a layer\'s pixels under one polygon).',
    min: 'The fewest allowed.',
    max: 'The most allowed.',
    got: 'How many were sent, when counted (a count stops past max).',
    index: 'With "pixels": the item of wkts at fault, from 0.',
  },
  polygon_too_large: {
    index: 'The item of wkts at fault, from 0.',
    areaKm2: 'Its geodesic area in km².',
    maxKm2: 'The largest area allowed (2).',
  },
  invalid_date: {
    got: 'The date sent, shortened (absent when it was not a string).',
    reason: 'What is wrong with it ("is not in the right format", "has no day 30 in that month"…).',
    timeScale: 'The time scale it was read on.',
    format: 'How dates of that scale are written.',
    example: 'A date of that scale.',
  },
  invalid_date_range: {
    reason: '"start after end", "not in layer" or "layer has no dates".',
    startDate: 'With "start after end": the dates sent.',
    endDate: 'With "start after end": the dates sent.',
    missingFirst: 'With "not in layer": the first period asked for that the layer lacks.',
    missingLast: 'With "not in layer": the last such period.',
    missingCount: 'With "not in layer": how many periods it lacks.',
    first: 'With "not in layer": the first period the layer holds.',
    last: 'With "not in layer": the last period the layer holds.',
    gaps: 'With "not in layer": whether the layer lacks periods between first and last.',
  },
  too_many_periods: {
    got: 'How many periods the range holds.',
    max: 'The most one request may ask for.',
    timeScale: 'The time scale of the periods.',
  },
  dataset_unavailable: {
    reason: '"unreachable" when the host did not answer at all (absent for a file that is missing or damaged).',
    url: 'The address that was read.',
  },
  upstream_timeout: { reason: '"timeout".', url: 'The address that was read.' },
  query_too_costly: {
    estimateBytes: "The bytes the query would decode, planned from the layer's chunk shapes.",
    maxBytes: 'The most one query may decode (an engine option).',
    chunks: 'How many chunks that is.',
  },
};

/** The JSON body of every error response. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; field?: string; params?: ErrorParams };
}

/** What an error is about: the value at fault and the values that explain it. */
export interface ErrorDetail {
  /** The value at fault: a JSON pointer (`/options/timeScale`, `/wkts/1`) or a path written `options.dataTypes[1]`, turned into one. */
  field?: string;
  params?: ErrorParams;
  cause?: unknown;
}

/** An error with a stable `code`, the HTTP `status` it maps to and, for invalid input, the `field` at fault. */
export class ClimateQueryError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** RFC 6901 JSON pointer into the request body (wkts items count as if the text were split on ";"). */
  readonly field: string | undefined;
  readonly params: ErrorParams | undefined;

  constructor(code: ErrorCode, message: string, detail: ErrorDetail = {}) {
    super(message, detail.cause === undefined ? undefined : { cause: detail.cause });
    this.name = 'ClimateQueryError';
    this.code = code;
    this.status = STATUS[code];
    this.field = detail.field === undefined ? undefined : toPointer(detail.field);
    this.params = detail.params;
  }

  /** The response body for this error. */
  toBody(): ErrorBody {
    const error: ErrorBody['error'] = { code: this.code, message: this.message };
    if (this.field !== undefined) error.field = this.field;
    if (this.params !== undefined) error.params = this.params;
    return { error };
  }
}

/** The error a body describes (an answer from a Worker or a server), with its field and params. */
export function errorFromBody(error: ErrorBody['error']): ClimateQueryError {
  const detail: ErrorDetail = {};
  if (error.field !== undefined) detail.field = error.field;
  if (error.params !== undefined) detail.params = error.params;
  return new ClimateQueryError(error.code, error.message, detail);
}

/** Shorthand for a 400 error about one request field. */
export function fieldError(code: ErrorCode, field: string, message: string, params?: ErrorParams): ClimateQueryError {
  return new ClimateQueryError(code, message, params === undefined ? { field } : { field, params });
}

/** A name as one token of a JSON pointer: `~` and `/` escaped (RFC 6901). */
export const pointerToken = (name: string): string => name.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * The JSON pointer of a field written as the messages write it:
 * `options.dataTypes[1]` → `/options/dataTypes/1`. A pointer is kept as it
 * is; `~` and `/` inside a name are escaped (RFC 6901).
 */
export function toPointer(path: string): string {
  if (path.startsWith('/') || path === '') return path;
  const tokens: string[] = [];
  for (const part of path.split('.')) {
    const bracket = part.indexOf('[');
    const name = bracket < 0 ? part : part.slice(0, bracket);
    tokens.push(pointerToken(name));
    // "[2]" suffixes are array indices; anything else stays part of the name.
    for (const [, index] of part.slice(name.length).matchAll(/\[(\d+)\]/g)) tokens.push(index as string);
  }
  return `/${tokens.join('/')}`;
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
