/**
 * HTTP semantics shared by every adapter: which paths exist, which method,
 * how big a body may be, and how any error becomes a JSON response. Pure;
 * the adapters only move bytes.
 */
import { ClimateQueryError, toClimateQueryError } from '../contract/errors.ts';
import { ENDPOINTS, type Endpoint } from '../contract/types.ts';
import { truncate } from '../contract/quote.ts';

/** Largest accepted request body, in bytes (docs/contract.md). */
export const MAX_REQUEST_BODY_BYTES = 1_048_576;

/**
 * Deepest JSON nesting read (objects and arrays). The contract's bodies nest
 * 2 deep (`options`, `dataTypes`); a value nested 20,000 deep once crashed a
 * validator's message with "Maximum call stack size exceeded" (a 500).
 */
export const MAX_JSON_DEPTH = 16;

/** An HTTP-like request. `body` is the raw text (or an already parsed value). */
export interface ApiRequest {
  method: string;
  /** URL path; everything before `/api/` is the deployment's base and is ignored. */
  path: string;
  body: string | unknown;
}

/** An HTTP-like response: status and a JSON-serialisable body. */
export interface ApiResponse {
  status: number;
  body: unknown;
}

/** The same response with its body as JSON text, as it goes on the wire. */
export interface ApiJsonResponse {
  status: number;
  json: string;
}

/**
 * The endpoint named by `path`, `null` when the path is under `/api/` but
 * names no endpoint, `undefined` when it is not an API path at all.
 */
export function endpointOf(path: string): Endpoint | null | undefined {
  const at = path.lastIndexOf('/api/');
  if (at < 0) return undefined;
  const name = path.slice(at + 5);
  const found = ENDPOINTS.find((e) => name === `${e}/`);
  return found ?? null;
}

/**
 * The checks that need no engine: path, method, body size. Returns the
 * error response, or null when the request may go on to the engine. The
 * service worker runs this before relaying, so it never wakes a page for a
 * request that would fail anyway.
 */
export function preflight(request: ApiRequest): { endpoint: Endpoint } | { error: ApiResponse } {
  const fail = (e: ClimateQueryError) => ({ error: { status: e.status, body: e.toBody() } });
  const endpoint = endpointOf(request.path);
  if (!endpoint) {
    return fail(
      new ClimateQueryError(
        'not_found',
        `No endpoint at ${request.path}. Endpoints: ${ENDPOINTS.map((e) => `/api/${e}/`).join(', ')} (with the trailing slash).`,
      ),
    );
  }
  if (request.method.toUpperCase() !== 'POST') {
    return fail(
      new ClimateQueryError('method_not_allowed', `${request.path} answers POST only; got ${request.method}.`),
    );
  }
  if (typeof request.body === 'string' && byteLength(request.body) > MAX_REQUEST_BODY_BYTES) {
    return fail(
      new ClimateQueryError('body_too_large', `The request body is larger than ${MAX_REQUEST_BODY_BYTES} bytes.`),
    );
  }
  return { endpoint };
}

function byteLength(text: string): number {
  // Cheap upper bound first: UTF-8 is at most 3 bytes per UTF-16 unit.
  return text.length * 3 <= MAX_REQUEST_BODY_BYTES ? text.length : new TextEncoder().encode(text).length;
}

/** Routes a request to `run` and maps every outcome to a status and JSON body. */
export async function routeRequest(
  request: ApiRequest,
  run: (endpoint: Endpoint, body: unknown) => Promise<unknown>,
): Promise<ApiResponse> {
  try {
    const pre = preflight(request);
    if ('error' in pre) return pre.error;
    let body = request.body;
    if (typeof body === 'string') {
      checkJsonDepth(body);
      try {
        body = JSON.parse(body);
      } catch (cause) {
        throw new ClimateQueryError(
          'invalid_json',
          `The request body is not valid JSON: ${truncate((cause as Error).message, 200)}`,
          { cause },
        );
      }
    }
    return { status: 200, body: await run(pre.endpoint, body) };
  } catch (err) {
    const e = toClimateQueryError(err);
    return { status: e.status, body: e.toBody() };
  }
}

/**
 * Refuses JSON text nested deeper than {@link MAX_JSON_DEPTH}, by one pass
 * over the raw text before `JSON.parse`: brackets inside strings do not count.
 */
export function checkJsonDepth(text: string): void {
  // The regex skips everything else natively, so a megabyte of WKT costs
  // a handful of matches, not a million loop turns.
  const special = /["\\[\]{}]/g;
  let depth = 0;
  let inString = false;
  for (let m = special.exec(text); m; m = special.exec(text)) {
    const c = m[0];
    if (inString) {
      if (c === '\\')
        special.lastIndex++; // skip the escaped character
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      if (++depth > MAX_JSON_DEPTH) {
        throw new ClimateQueryError(
          'invalid_json',
          `The request body nests objects or arrays more than ${MAX_JSON_DEPTH} deep; no field of the contract nests more than 2.`,
        );
      }
    } else if (c === '}' || c === ']') depth--;
  }
}
