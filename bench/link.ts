/**
 * The links the bench measures over, and the two pieces that model them in
 * front of bench/server.ts: a bandwidth limit shared by every connection (a
 * TCP relay that releases the server's bytes at the link's rate, as a farm's
 * line would) and HTTP/2 (TLS with a throwaway self-signed certificate, so
 * Chromium multiplexes every request on one connection instead of six).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';

/** One way of reaching the host. */
export interface LinkProfile {
  /** Key of its runs in results.json. */
  id: string;
  /** How the report names it. */
  label: string;
  /** Added before every answer starts, ms (the round trip). */
  latencyMs: number;
  /** Bandwidth from host to client shared by all requests, Mbit/s; null = not limited (loopback). */
  mbit: number | null;
  /** Requests in flight at once: 6 for a browser's HTTP/1.1 connections to one host, 100 for HTTP/2 streams. */
  streams: number;
  /** Served over HTTP/2 (TLS) to Chromium; Node clients get the same gate over HTTP/1.1 with as many connections. */
  http2: boolean;
}

/** Every profile a bench run may use; the ids are the keys of the run counts in bench/run.ts. */
export const PROFILES: readonly LinkProfile[] = [
  { id: '0', label: '0 ms, unlimited, 6 connections', latencyMs: 0, mbit: null, streams: 6, http2: false },
  { id: '40', label: '40 ms, unlimited, 6 connections', latencyMs: 40, mbit: null, streams: 6, http2: false },
  { id: '40-20mbit', label: '40 ms, 20 Mbit/s, 6 connections', latencyMs: 40, mbit: 20, streams: 6, http2: false },
  {
    id: '150-4mbit',
    label: '150 ms, 4 Mbit/s, 6 connections (rural mobile)',
    latencyMs: 150,
    mbit: 4,
    streams: 6,
    http2: false,
  },
  {
    id: '40-h2',
    label: '40 ms, unlimited, HTTP/2 (100 streams)',
    latencyMs: 40,
    mbit: null,
    streams: 100,
    http2: true,
  },
];

/** The profile of an id; throws on an unknown one. */
export function profileOf(id: string): LinkProfile {
  const p = PROFILES.find((x) => x.id === id);
  if (!p) throw new Error(`unknown link profile "${id}" (known: ${PROFILES.map((x) => x.id).join(', ')})`);
  return p;
}

/**
 * A token bucket in time: bytes are released one after another at `bytesPerMs`, whoever sends
 * them, so parallel answers share the rate as they share a real line.
 */
export class SharedLink {
  private nextFree = 0;
  private readonly bytesPerMs: number;
  constructor(mbit: number) {
    this.bytesPerMs = (mbit * 1e6) / 8 / 1000;
  }

  /** ms to wait before `n` more bytes have passed the link. */
  reserve(n: number): number {
    const now = performance.now();
    this.nextFree = Math.max(now, this.nextFree) + n / this.bytesPerMs;
    return this.nextFree - now;
  }
}

/**
 * Pieces small enough that the rate is smooth (4 KiB is 8 ms at 4 Mbit/s), as a real line
 * delivers a body: its first bytes come with the headers, the rest at the line's rate (the
 * engine's link meter times the rest).
 */
const PIECE = 4 * 1024;

class Throttle extends Transform {
  constructor(private readonly link: SharedLink) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    const pieces: Buffer[] = [];
    for (let at = 0; at < chunk.length; at += PIECE) pieces.push(chunk.subarray(at, at + PIECE));
    const next = (): void => {
      const piece = pieces.shift();
      if (!piece) {
        done();
        return;
      }
      setTimeout(() => {
        this.push(piece);
        next();
      }, this.link.reserve(piece.length));
    };
    next();
  }
}

/** A relay on 127.0.0.1 in front of `upstreamPort` that passes what flows back to the client through `link`. */
export async function startThrottledRelay(
  upstreamPort: number,
  link: SharedLink,
): Promise<{ port: number; close(): void }> {
  const sockets = new Set<Socket>();
  const relay: Server = createServer((client) => {
    const upstream = connect(upstreamPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', () => {
      upstream.destroy();
      sockets.delete(client);
    });
    // When the server closes, what is still passing the link reaches the client first (pipe ends it).
    upstream.on('error', drop).on('close', () => sockets.delete(upstream));
    client.pipe(upstream);
    upstream.pipe(new Throttle(link)).pipe(client);
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
  const port = (relay.address() as { port: number }).port;
  return {
    port,
    close() {
      for (const s of sockets) s.destroy();
      relay.close();
    },
  };
}

/** A throwaway self-signed certificate for 127.0.0.1 (openssl), for the HTTP/2 profile. */
export function selfSignedCertificate(): { key: Buffer; cert: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'cq-bench-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '2',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One request's span as the server saw it (arrival → end of its answer). */
export interface Span {
  t0?: number;
  t1?: number;
}

/**
 * The sequential round trips of a run after the catalog: how many times the requests in flight
 * went from none to some, catalog.json left out (the targets count from it). A query's reads come
 * in phases that depend on each other (the index, then coverage lines, then station files), and
 * nothing of the next phase is sent before the last one is answered, so each phase is one busy
 * period; requests of one phase overlap as long as each lasts longer than the gap between two
 * sends (true at 40 ms: a browser sends its fetches about 1 ms apart). Counting chains instead
 * (a request sent after another was answered) took Chromium's spread-out sends for steps. Over
 * six connections queued requests stay within their phase's busy period too.
 */
export function roundTrips(log: ReadonlyArray<Span & { path?: string }>): number {
  const spans = log
    .filter((e) => !e.path?.endsWith('/catalog.json'))
    .filter((e): e is Required<Span> & { path?: string } => e.t0 !== undefined && e.t1 !== undefined)
    .sort((a, b) => a.t0 - b.t0);
  let periods = 0;
  let openUntil = Number.NEGATIVE_INFINITY;
  for (const s of spans) {
    if (s.t0 > openUntil) periods++;
    openUntil = Math.max(openUntil, s.t1);
  }
  return periods;
}
