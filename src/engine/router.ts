/**
 * HTTP semantics shared by every adapter: which paths exist, which method,
 * how big a body may be, and how any error becomes a JSON response. Pure;
 * the adapters only move bytes.
 */
import { ClimateQueryError, toClimateQueryError } from '../contract/errors.ts';
import { ENDPOINTS, type Endpoint } from '../contract/types.ts';

/** Largest accepted request body, in bytes (docs/contract.md). */
export const MAX_BODY_BYTES = 1_048_576;

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

/** Routes a request to `run` and maps every outcome to a status and JSON body. */
export async function routeRequest(request: ApiRequest, run: (endpoint: Endpoint, body: unknown) => Promise<unknown>): Promise<ApiResponse> {
  try {
    const endpoint = endpointOf(request.path);
    if (!endpoint) {
      throw new ClimateQueryError('not_found', `No endpoint at ${request.path}. Endpoints: ${ENDPOINTS.map((e) => `/api/${e}/`).join(', ')} (with the trailing slash).`);
    }
    if (request.method.toUpperCase() !== 'POST') {
      throw new ClimateQueryError('method_not_allowed', `${request.path} answers POST only; got ${request.method}.`);
    }
    let body = request.body;
    if (typeof body === 'string') {
      if (new TextEncoder().encode(body).length > MAX_BODY_BYTES) {
        throw new ClimateQueryError('body_too_large', `The request body is larger than ${MAX_BODY_BYTES} bytes.`);
      }
      try {
        body = JSON.parse(body);
      } catch (cause) {
        throw new ClimateQueryError('invalid_json', `The request body is not valid JSON: ${(cause as Error).message}`, { cause });
      }
    }
    return { status: 200, body: await run(endpoint, body) };
  } catch (err) {
    const e = toClimateQueryError(err);
    return { status: e.status, body: e.toBody() };
  }
}
