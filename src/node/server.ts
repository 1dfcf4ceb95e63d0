/**
 * `climate-query serve`: the four POST routes through the engine's router,
 * and the dataset's static files with Range/HEAD, from one process. So one
 * command serves a deployable dataset and its API.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { resolve } from 'node:path';
import { stat } from 'node:fs/promises';
import { ClimateQueryError } from '../contract/errors.ts';
import type { ClimateEngine } from '../engine/engine.ts';
import { MAX_REQUEST_BODY_BYTES, endpointOf } from '../engine/router.ts';
import { CORS_HEADERS, serveStatic } from './static-files.ts';
import { openApiDocument } from '../engine/openapi.ts';
import { type Catalog, layoutOf, layoutOwns, stationsUtcOffset } from '../dataset/catalog.ts';
import { packageVersion } from './package-version.ts';

/** Options of {@link startServer}. */
export interface ServerOptions {
  engine: ClimateEngine;
  /** Folder whose files are served as static files (the dataset); omit for API only. */
  staticRoot?: string;
  /** Serve files a symlink in `staticRoot` leads out of it to (default: 404, like the engine's refusal). */
  followLinks?: boolean;
  /**
   * Serve from `staticRoot` only what the dataset lists (catalog.json, the files its catalog names, the
   * objects of its zarr stores, its station archive), as `serve --data` does unless told `--all-files`.
   */
  listedOnly?: boolean;
  port?: number;
  /** Default 127.0.0.1: loopback only, unless you choose otherwise. */
  host?: string;
  /** Most sockets open at once (default {@link MAX_CONNECTIONS}). */
  maxConnections?: number;
  /**
   * The local catalog.json the engine answers from: when it changes (a build, merge or remove
   * switched it), the engine reloads before the next request.
   */
  catalogFile?: string;
}

/** Sockets kept for other clients: one client (address) may hold all but these. */
export const CONNECTIONS_KEPT_FOR_OTHERS = 32;

/** Time a client has to send its request headers, and its whole request, ms. */
export const HEADERS_TIMEOUT_MS = 20_000;
export const REQUEST_TIMEOUT_MS = 30_000;
/** Most sockets `serve` holds open at once: room for many browsers, not for a flood of slow clients. */
export const MAX_CONNECTIONS = 256;

/** A running server. */
export interface RunningServer {
  server: Server;
  /** Base URL, e.g. http://127.0.0.1:8787/ */
  url: string;
  close(): Promise<void>;
}

function sendJson(res: import('node:http').ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...CORS_HEADERS,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** Reads the body, stopping (and returning null) past the size limit. */
function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolvePromise, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_REQUEST_BODY_BYTES) {
        // Answer now; the rest of the body is discarded unread.
        over = true;
        chunks.length = 0;
        resolvePromise(null);
      } else if (!over) chunks.push(c);
    });
    req.on('end', () => resolvePromise(over ? null : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/**
 * Requests Node's HTTP parser refuses never reach the handler; by default
 * Node answers them with a bare, non-JSON 400/431 (docs/decisions/0002-platform-facts.md §HTTP). This
 * answers them with the contract's JSON error body instead.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const e =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new ClimateQueryError(
          'headers_too_large',
          'The request headers are larger than the server accepts (16 KiB in all); send fewer or shorter headers.',
        )
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new ClimateQueryError('request_timeout', 'The request was not received in time; send it again.')
        : new ClimateQueryError(
            'bad_request',
            `The request is not valid HTTP/1.1 (${err.code ?? 'parse error'}); check the method, the headers and Content-Length / Transfer-Encoding.`,
          );
  const text = JSON.stringify(e.toBody());
  const head = [
    `HTTP/1.1 ${e.status} ${REASONS[e.status] ?? 'Error'}`,
    ...Object.entries(CORS_HEADERS).map(([k, v]) => `${k}: ${v}`),
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(text)}`,
    'Connection: close',
  ];
  // Then closed whole: a slow client that goes on sending must not keep the socket (end() alone only
  // stopped our side; a dripping client held it open past every limit).
  socket.end(`${head.join('\r\n')}\r\n\r\n${text}`, () => socket.destroy());
}

/** Starts the server and resolves once it listens. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const root = options.staticRoot ? resolve(options.staticRoot) : undefined;
  // The catalog the engine read, by what identifies one write of it (a writer renames a new file in).
  const catalogIdentity = async (): Promise<string> => {
    if (!options.catalogFile) return '';
    const s = await stat(options.catalogFile).catch(() => null);
    return s ? `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}` : 'none';
  };
  let seenCatalog = await catalogIdentity();
  /** Reloads the engine when catalog.json is another file than the one last seen: one stat per request. */
  const followCatalog = async () => {
    if (!options.catalogFile) return;
    const now = await catalogIdentity();
    if (now !== seenCatalog) {
      seenCatalog = now;
      options.engine.reload();
    }
  };
  // The description of the routes (GET /api/openapi.json), built on first ask.
  let openApi: Promise<Record<string, unknown>> | undefined;
  let stationFiles: { catalog: Catalog; paths: Promise<Set<string>> } | undefined;
  /** Whether the dataset lists `rel` (a path inside `staticRoot`). */
  const listed = async (rel: string): Promise<boolean> => {
    if (rel === 'catalog.json') return true;
    const c = await options.engine.catalog().catch(() => null);
    if (!c) return false;
    if (c.files.some((f) => f.path === rel)) return true;
    for (const l of c.rasters) {
      if (l.preview === rel) return true;
      for (const f of l.files) if (layoutOwns(layoutOf(l), f.path, rel)) return true;
    }
    // The station archive: its index and coverage (listed above), and the station files its index lists
    // (any scale, at any depth: an archive another tool wrote keeps its own folders), read once per catalog.
    if (c.stations === null) return false;
    if (stationFiles?.catalog !== c) {
      stationFiles = {
        catalog: c,
        paths: options.engine.stations().then(
          (ss) => new Set(ss.flatMap((st) => Object.values(st.files).map((f) => f.path))),
          () => new Set<string>(),
        ),
      };
    }
    return (await stationFiles.paths).has(rel);
  };
  // A slow client is bounded: its headers within 20 s and its whole request within 30 s (Node's default
  // was 300 s for a body), checked every 2 s (Node's default check runs every 30 s); at most
  // MAX_CONNECTIONS sockets at once, beyond which new ones are refused.
  const server = createServer(
    { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 2_000 },
    (req, res) => {
      void (async () => {
        let url: URL;
        try {
          url = new URL(req.url ?? '/', 'http://localhost');
        } catch {
          const e = new ClimateQueryError('bad_request', 'The request target is not a valid URL path.');
          sendJson(res, e.status, e.toBody());
          return;
        }
        const method = req.method ?? 'GET';
        await followCatalog();
        if (method === 'OPTIONS') {
          res.writeHead(204, CORS_HEADERS);
          res.end();
          return;
        }
        if ((method === 'GET' || method === 'HEAD') && url.pathname.endsWith('/api/openapi.json')) {
          // The zone station dates are in is the dataset's; without a readable catalog, the contract's.
          // A failed read is not kept: the next request reads the catalog again.
          openApi ??= options.engine.catalog().then(
            (c) => openApiDocument(packageVersion(), stationsUtcOffset(c)),
            () => ((openApi = undefined), openApiDocument(packageVersion())),
          );
          sendJson(res, 200, await openApi);
          return;
        }
        if (endpointOf(url.pathname) !== undefined) {
          // Abort the query when the client goes away.
          const controller = new AbortController();
          res.on('close', () => {
            if (!res.writableFinished) controller.abort();
          });
          const body = method === 'POST' ? await readBody(req) : '';
          if (body === null) {
            const e = new ClimateQueryError(
              'body_too_large',
              `The request body is larger than ${MAX_REQUEST_BODY_BYTES} bytes.`,
            );
            sendJson(res, e.status, e.toBody());
            return;
          }
          const answer = await options.engine.handle(
            { method, path: url.pathname, body },
            { signal: controller.signal },
          );
          sendJson(res, answer.status, answer.body);
          return;
        }
        if (
          (method === 'GET' || method === 'HEAD') &&
          root &&
          (await serveStatic(root, url.pathname, req, res, {
            followLinks: options.followLinks === true,
            ...(options.listedOnly ? { allowed: (rel: string) => listed(rel) } : {}),
          }))
        )
          return;
        const e = new ClimateQueryError('not_found', `Nothing at ${url.pathname}.`);
        sendJson(res, e.status, e.toBody());
      })().catch((err: unknown) => {
        // Not reached by any input the tests know of; kept so no fault can end the process.
        if (!res.headersSent) sendJson(res, 500, new ClimateQueryError('internal', String(err)).toBody());
        else res.destroy();
      });
    },
  );
  server.on('clientError', answerClientError);
  server.maxConnections = options.maxConnections ?? MAX_CONNECTIONS;
  // One client may not hold every socket: past its share, its new connections are closed at once.
  const share = Math.max(1, server.maxConnections - CONNECTIONS_KEPT_FOR_OTHERS);
  const perClient = new Map<string, number>();
  server.on('connection', (socket) => {
    const who = socket.remoteAddress ?? '?';
    const n = (perClient.get(who) ?? 0) + 1;
    if (n > share) {
      socket.destroy();
      return;
    }
    perClient.set(who, n);
    socket.once('close', () => {
      const left = (perClient.get(who) ?? 1) - 1;
      if (left > 0) perClient.set(who, left);
      else perClient.delete(who);
    });
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 8787, options.host ?? '127.0.0.1', () => ok());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    server,
    url: `http://${host}:${addr.port}/`,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
