/**
 * The benchmark's static host: `serveStatic` (src/node/static-files.ts, the
 * handler `climate-query serve` uses: Range, HEAD, CORS) behind a gate that
 * models a browser talking HTTP/1.1 to a CDN — a fixed latency added to
 * every request and at most `maxConnections` requests served at once (the
 * rest queue, as they would for a free connection) — and counters of every
 * request and body byte.
 *
 * Several folders can be mounted under URL prefixes (the built bench page,
 * the dataset, the per-date baseline files). Paths under `/__bench/` are the
 * control API for benchmark child processes (read or reset the counters);
 * they skip the gate and are not counted. A page posts its answer to
 * `/__bench/answer`.
 */
import { createServer, get as httpGet, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createSecureServer, type Http2SecureServer, type ServerHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { CORS_HEADERS, serveStatic } from '../src/node/static-files.ts';
import { SharedLink, selfSignedCertificate, startThrottledRelay, type LinkProfile } from './link.ts';

/** One request as the server saw it. */
export interface LoggedRequest {
  method: string;
  /** URL path, including the mount prefix. */
  path: string;
  range: string | null;
  status: number;
  /** Body bytes sent. */
  bytes: number;
  /** Arrival and end of the answer, ms on the server's performance.now() clock (the gate's wait and the latency included). */
  t0?: number;
  t1?: number;
}

/** Counters since the last reset. */
export interface ServerCounts {
  requests: number;
  bytes: number;
  log: LoggedRequest[];
}

/** Options of {@link startBenchServer}. */
export interface BenchServerOptions {
  /** URL prefix (e.g. "/data/") → folder. */
  mounts: Record<string, string>;
  /** The link: latency per request, bandwidth, requests at once, HTTP/2. */
  profile: LinkProfile;
}

/** A running bench server. */
export interface BenchServer {
  /** Base URL ending in "/", for Chromium (https:// under the HTTP/2 profile). */
  readonly url: string;
  /** Base URL for Node clients: plain HTTP/1.1 through the same gate, latency and bandwidth. */
  readonly nodeUrl: string;
  readonly profile: LinkProfile;
  readonly latencyMs: number;
  /** Counters since start or the last {@link BenchServer.reset}. */
  counts(): ServerCounts;
  /** The last body POSTed to `/__bench/answer` (a page hands its answer over this way: faster than the test driver for large answers). */
  takeAnswer(): string | null;
  reset(): void;
  close(): Promise<void>;
}

/** A FIFO counting semaphore. */
class Gate {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(size: number) {
    this.free = size;
  }

  async acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((r) => this.waiting.push(r));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Starts a bench server on 127.0.0.1 (ports chosen by the OS) for `options.profile`: a gate of
 * `streams` requests at once, its latency before each answer, under the HTTP/2 profile a TLS
 * HTTP/2 listener for Chromium beside the plain one for Node, and with a bandwidth a relay in
 * front of each listener that shares the rate among all of them.
 */
export async function startBenchServer(options: BenchServerOptions): Promise<BenchServer> {
  const mounts = Object.entries(options.mounts)
    .map(([prefix, dir]) => [prefix.endsWith('/') ? prefix : `${prefix}/`, resolve(dir)] as const)
    .sort((a, b) => b[0].length - a[0].length);
  const { profile } = options;
  const gate = new Gate(profile.streams);
  let log: LoggedRequest[] = [];

  const server = createServer((req, res) => void handle(req, res));
  // Node closes an idle keep-alive socket after 5 s; a client that picks that socket for its next
  // request at the same moment gets "other side closed" (undici does not retry it). Queued behind the
  // 6-request gate, geotiff.js's 366-file baseline hit that race: keep idle sockets a minute, as CDNs do.
  server.keepAliveTimeout = 60_000;
  const h2: Http2SecureServer | null = profile.http2
    ? createSecureServer(
        { ...selfSignedCertificate(), allowHTTP1: true },
        (req, res) => void handle(req as unknown as IncomingMessage, res as unknown as ServerResponse),
      )
    : null;
  const sessions = new Set<ServerHttp2Session>();
  h2?.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path.startsWith('/__bench/')) return controlAnswer(path, req, res);
    if (req.method === 'OPTIONS') {
      res.writeHead(204, CORS_HEADERS).end();
      return;
    }
    const t0 = performance.now();
    await gate.acquire();
    let released = false;
    const release = () => {
      if (!released) {
        released = true;
        gate.release();
      }
    };
    res.on('close', release);
    const entry: LoggedRequest = {
      method: req.method ?? 'GET',
      path,
      range: req.headers.range ?? null,
      status: 0,
      bytes: 0,
      t0,
    };
    countBody(res, entry);
    // 'close' comes for finished and for abandoned answers alike.
    res.on('close', () => {
      entry.status = res.statusCode;
      entry.t1 = performance.now();
      log.push(entry);
    });
    try {
      if (profile.latencyMs > 0) await sleep(profile.latencyMs);
      const mount = mounts.find(([prefix]) => path.startsWith(prefix));
      const served = mount ? await serveStatic(mount[1], path.slice(mount[0].length - 1), req, res) : false;
      if (!served) res.writeHead(404, CORS_HEADERS).end();
    } catch {
      if (!res.headersSent) res.writeHead(500, CORS_HEADERS);
      res.end();
    }
  }

  let answer: string | null = null;

  function controlAnswer(path: string, req: IncomingMessage, res: ServerResponse): void {
    if (path === '/__bench/answer' && req.method === 'POST') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        answer = Buffer.concat(chunks).toString('utf8');
        res.writeHead(204, CORS_HEADERS).end();
      });
      return;
    }
    if (path === '/__bench/reset') log = [];
    const body = path === '/__bench/counts' ? JSON.stringify(summarise(log)) : '{}';
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...CORS_HEADERS }).end(body);
  }

  const listen = async (s: Server | Http2SecureServer) => {
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    return (s.address() as AddressInfo).port;
  };
  const relays: Array<{ close(): void }> = [];
  // With a bandwidth, clients reach each listener through a relay; one relay per listener, one rate for all.
  const reach = async (port: number): Promise<number> => {
    if (profile.mbit === null) return port;
    const relay = await startThrottledRelay(port, sharedLink!);
    relays.push(relay);
    return relay.port;
  };
  const sharedLink = profile.mbit === null ? undefined : new SharedLink(profile.mbit);
  const nodeUrl = `http://127.0.0.1:${await reach(await listen(server))}/`;
  const url = h2 ? `https://127.0.0.1:${await reach(await listen(h2))}/` : nodeUrl;
  return {
    url,
    nodeUrl,
    profile,
    latencyMs: profile.latencyMs,
    counts: () => summarise(log),
    takeAnswer() {
      const a = answer;
      answer = null;
      return a;
    },
    reset() {
      log = [];
    },
    async close() {
      for (const relay of relays) relay.close();
      for (const session of sessions) session.destroy();
      if (h2) await new Promise<void>((r) => h2.close(() => r()));
      await new Promise<void>((r, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : r()));
      });
    },
  };
}

function summarise(log: LoggedRequest[]): ServerCounts {
  return { requests: log.length, bytes: log.reduce((s, e) => s + e.bytes, 0), log: [...log] };
}

/** Adds every body byte written to `res` to `entry.bytes`. */
function countBody(res: ServerResponse, entry: LoggedRequest): void {
  const size = (chunk: unknown): number =>
    typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk instanceof Uint8Array ? chunk.byteLength : 0;
  const write = res.write.bind(res) as (...a: unknown[]) => boolean;
  const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
  (res as unknown as { write: (...a: unknown[]) => boolean }).write = (chunk: unknown, ...rest: unknown[]) => {
    entry.bytes += size(chunk);
    return write(chunk, ...rest);
  };
  (res as unknown as { end: (...a: unknown[]) => ServerResponse }).end = (chunk?: unknown, ...rest: unknown[]) => {
    if (typeof chunk !== 'function') entry.bytes += size(chunk);
    return end(chunk, ...rest);
  };
}

/** A control call on its own connection (no pooled socket that the server may have closed meanwhile). */
function control(serverUrl: string, what: 'counts' | 'reset'): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpGet(new URL(`__bench/${what}`, serverUrl), { agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve(text));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** Reads the counters of a bench server from another process (control API). */
export async function remoteCounts(serverUrl: string): Promise<ServerCounts> {
  return JSON.parse(await control(serverUrl, 'counts')) as ServerCounts;
}

/** Resets the counters of a bench server from another process (control API). */
export async function remoteReset(serverUrl: string): Promise<void> {
  await control(serverUrl, 'reset');
}
