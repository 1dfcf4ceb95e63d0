/**
 * A real static HTTP server for tests: serves a folder with HEAD and
 * single-range GET support (206 / 416), like any static host or object
 * store, and counts every request and every body byte it sends, so tests
 * can assert what a query costs on the wire.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize, sep } from 'node:path';

/** One request as the server saw it. */
export interface RangeRequestLog {
  method: string;
  path: string;
  range: string | null;
  status: number;
  bytes: number;
}

/** How the server behaves; the defaults are a plain same-origin static host. */
export interface RangeServerOptions {
  /** Sends CORS headers as `climate-query serve` does, so a page of another origin can read it. */
  cors?: boolean;
  /** False: ignores Range and answers 200 with the whole file, as some hosts do. */
  ranges?: boolean;
  /** Answers a missing file with this HTML page (200, text/html), as single-page-app hosts do. */
  htmlFallback?: string;
  /** Answers these paths with this HTTP status and no body. */
  status?: Record<string, number>;
  /** Holds every GET this long before answering, like a distant host. */
  delayMs?: number;
  /** Names each file's version (ETag, Last-Modified) and honours If-Range, as nginx, Apache and S3 do. */
  versions?: boolean;
}

/** A running server. */
export interface RangeServer {
  /** Base URL ending in "/", e.g. http://127.0.0.1:41234/ */
  url: string;
  /** Requests and body bytes since start or the last reset. */
  readonly requests: number;
  readonly bytes: number;
  readonly log: RangeRequestLog[];
  /** Per path, the most GET requests that were being answered at the same time. */
  readonly maxInFlight: Map<string, number>;
  reset(): void;
  close(): Promise<void>;
}

/** Starts a server for `root` on 127.0.0.1, port chosen by the OS. */
export async function startRangeServer(root: string, options: RangeServerOptions = {}): Promise<RangeServer> {
  const log: RangeRequestLog[] = [];
  const inFlight = new Map<string, number>();
  const maxInFlight = new Map<string, number>();
  const server = createServer((req, res) => {
    if (options.cors) {
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.setHeader('Access-Control-Expose-Headers', 'Content-Length, Content-Range, Accept-Ranges, ETag');
      if (req.method === 'OPTIONS') {
        res
          .writeHead(204, { 'Access-Control-Allow-Methods': 'GET, HEAD', 'Access-Control-Allow-Headers': 'Range' })
          .end();
        return;
      }
    }
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const now = (inFlight.get(path) ?? 0) + 1;
    inFlight.set(path, now);
    maxInFlight.set(path, Math.max(now, maxInFlight.get(path) ?? 0));
    res.on('close', () => inFlight.set(path, inFlight.get(path)! - 1));
    const go = () => void handle(root, req, res, (entry) => log.push(entry), options);
    if (options.delayMs && req.method === 'GET') setTimeout(go, options.delayMs);
    else go();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    get requests() {
      return log.length;
    },
    get bytes() {
      return log.reduce((s, e) => s + e.bytes, 0);
    },
    log,
    maxInFlight,
    reset() {
      log.length = 0;
      maxInFlight.clear();
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

// Each request is logged as soon as its status and length are known, before the body is
// streamed, so a client that has its bytes always sees its request counted.
async function handle(
  root: string,
  req: IncomingMessage,
  res: ServerResponse,
  record: (e: RangeRequestLog) => void,
  options: RangeServerOptions,
): Promise<void> {
  const method = req.method ?? 'GET';
  const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
  const range = options.ranges === false ? null : (req.headers.range ?? null);
  const done = (status: number, bytes = 0): void => record({ method, path, range, status, bytes });
  const file = normalize(join(root, path));
  if (!file.startsWith(normalize(root + sep)) || (method !== 'GET' && method !== 'HEAD')) {
    res.writeHead(method === 'GET' || method === 'HEAD' ? 403 : 405).end();
    return done(res.statusCode);
  }
  const forced = options.status?.[path];
  if (forced) {
    res.writeHead(forced).end();
    return done(forced);
  }
  let size: number;
  let version: { ETag: string; 'Last-Modified': string };
  try {
    const s = await stat(file);
    if (!s.isFile()) throw new Error('not a file');
    size = s.size;
    // As static hosts name a file's version (nginx, Apache, S3): an ETag from size and time, and the time.
    version = {
      ETag: `"${s.size.toString(16)}-${Math.floor(s.mtimeMs).toString(16)}"`,
      'Last-Modified': s.mtime.toUTCString(),
    };
  } catch {
    if (options.htmlFallback !== undefined) {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(options.htmlFallback);
      return done(200, Buffer.byteLength(options.htmlFallback));
    }
    res.writeHead(404).end();
    return done(404);
  }
  const headers = {
    'Accept-Ranges': 'bytes',
    'Content-Type': 'application/octet-stream',
    ...(options.versions ? version : {}),
  };
  if (method === 'HEAD') {
    res.writeHead(200, { ...headers, 'Content-Length': size }).end();
    return done(200);
  }
  let start = 0;
  let end = size - 1;
  let status = 200;
  // If-Range naming another version: the whole file, as RFC 9110 asks.
  const ifRange = req.headers['if-range'];
  const sameVersion =
    !options.versions || ifRange === undefined || ifRange === version.ETag || ifRange === version['Last-Modified'];
  if (range && sameVersion) {
    const m = /^bytes=(\d*)-(\d*)$/.exec(range.trim());
    if (!m || (m[1] === '' && m[2] === '')) {
      res.writeHead(416, { 'Content-Range': `bytes */${size}` }).end();
      return done(416);
    }
    if (m[1] === '') {
      start = Math.max(0, size - Number(m[2]));
    } else {
      start = Number(m[1]);
      end = m[2] === '' ? size - 1 : Math.min(size - 1, Number(m[2]));
    }
    if (start >= size || start > end) {
      res.writeHead(416, { 'Content-Range': `bytes */${size}` }).end();
      return done(416);
    }
    status = 206;
  }
  const length = end - start + 1;
  done(status, length);
  res.writeHead(status, {
    ...headers,
    'Content-Length': length,
    ...(status === 206 ? { 'Content-Range': `bytes ${start}-${end}/${size}` } : {}),
  });
  await new Promise<void>((resolve) => {
    const stream = createReadStream(file, { start, end });
    stream.on('error', () => {
      res.destroy();
      resolve();
    });
    res.on('close', resolve);
    stream.pipe(res);
  });
}
