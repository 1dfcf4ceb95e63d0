/**
 * A static HTTP server with Range support that misbehaves on request, the
 * way real hosts and links do: it stalls before or after the headers,
 * resets, truncates or shortens bodies, sends bytes from elsewhere,
 * ignores Range, lies in Content-Range, drips
 * bytes slowly, and can switch the folder it serves mid-query (a redeploy).
 * Each fault applies to the next `times` matching requests, then the server
 * heals, so tests can check recovery too. Loopback only; every stalled
 * response is released when the server closes.
 */
import { readFile, stat } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize, sep } from 'node:path';

/** What the server does wrong. */
export type Fault =
  | 'stall-headers' // never answers
  | 'stall-body' // headers and half the body, then silence
  | 'reset' // headers and half the body, then the connection is cut
  | 'truncate' // a Content-Length and body half as long as the Content-Range says
  | 'ignore-range' // 200 with the whole file
  | 'wrong-start' // Content-Range and bytes from 16 bytes later than asked
  | 'short' // a 206 for only the first half of the range, its Content-Range and Content-Length saying so
  | 'shifted' // the Content-Range asked for, with the bytes from 4 KiB later (a proxy's cache gone wrong)
  | 'wrong-total' // Content-Range names a total size 1,000 bytes larger
  | 'drip'; // the right bytes, 64 at a time every 40 ms

/** A fault on the requests whose path ends with `path` (any when absent). */
export interface FaultRule {
  fault: Fault;
  path?: string;
  /** How many matching requests get the fault (default: all, until cleared). */
  times?: number;
}

/** A running fault server. */
export interface FaultServer {
  /** Base URL ending in "/". */
  url: string;
  /** The folder served; assign another to redeploy at once. */
  root: string;
  /** Requests answered, by path. */
  readonly hits: Map<string, number>;
  /** The paths answered with multipart/byteranges (with `multiRange`), one entry per answer. */
  readonly multipartAnswers: string[];
  /** Sets the faults (replacing earlier ones). */
  inject(...rules: FaultRule[]): void;
  /** Removes every fault. */
  heal(): void;
  /** Called after each request's answer started, with its path (to redeploy mid-query). */
  onRequest: ((path: string) => void) | null;
  close(): Promise<void>;
}

/** Options of {@link startFaultServer}. */
export interface FaultServerOptions {
  /**
   * Answer several ranges in one request as `multipart/byteranges` (as nginx does), each part
   * with the fault a single range would get (`truncate`: the whole body cut in half). Default:
   * the whole file, as for any Range header it does not read.
   */
  multiRange?: boolean;
}

/** Starts a fault server for `root` on 127.0.0.1. */
export async function startFaultServer(root: string, options: FaultServerOptions = {}): Promise<FaultServer> {
  let rules: Array<FaultRule & { left: number }> = [];
  const stalled = new Set<ServerResponse>();
  const hits = new Map<string, number>();
  const state: FaultServer = {
    url: '',
    root,
    hits,
    multipartAnswers: [],
    inject(...r) {
      rules = r.map((x) => ({ ...x, left: x.times ?? Infinity }));
    },
    heal() {
      rules = [];
    },
    onRequest: null,
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const res of stalled) res.destroy();
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };

  const server = createServer((req, res) => {
    void (async () => {
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const rule = rules.find((r) => r.left > 0 && (!r.path || path.endsWith(r.path)));
      if (rule) rule.left--;
      const fault = rule?.fault ?? null;
      const servedRoot = state.root;
      const file = normalize(join(servedRoot, path));
      if (!file.startsWith(normalize(servedRoot + sep))) return void res.writeHead(403).end();
      let bytes: Buffer;
      let mtime: number;
      try {
        const s = await stat(file);
        bytes = await readFile(file);
        mtime = s.mtimeMs;
      } catch {
        return void res.writeHead(404).end();
      }
      const size = bytes.length;
      // An ETag like nginx's: modification time and size.
      const etag = `"${Math.floor(mtime).toString(16)}-${size.toString(16)}"`;
      const headers: Record<string, string | number> = {
        'Accept-Ranges': 'bytes',
        'Content-Type': 'application/octet-stream',
        ETag: etag,
      };
      const ifMatch = req.headers['if-match'];
      if (ifMatch && ifMatch !== etag) return void res.writeHead(412, headers).end();
      const several = options.multiRange ? severalRanges(req.headers.range, size) : null;
      if (several && fault !== 'ignore-range') {
        state.onRequest?.(path);
        if (fault === 'stall-headers') {
          stalled.add(res);
          return;
        }
        const boundary = 'fault-server-parts';
        const total = fault === 'wrong-total' ? size + 1000 : size;
        const chunks: Buffer[] = [];
        for (const [i, r] of several.entries()) {
          let [from, to] = [r.start, r.end];
          let body = bytes.subarray(from, to + 1);
          if (fault === 'wrong-start') {
            from += 16;
            to = Math.min(size - 1, to + 16);
            body = bytes.subarray(from, to + 1);
          }
          if (fault === 'short' && to > from) {
            to = from + Math.floor((to - from) / 2);
            body = bytes.subarray(from, to + 1);
          }
          if (fault === 'shifted') {
            const at = Math.min(size, from + 4096);
            body = Buffer.concat([
              bytes.subarray(at, at + body.length),
              Buffer.alloc(Math.max(0, body.length - (size - at))),
            ]);
          }
          chunks.push(
            Buffer.from(`${i ? '\r\n' : ''}--${boundary}\r\nContent-Range: bytes ${from}-${to}/${total}\r\n\r\n`),
            body,
          );
        }
        chunks.push(Buffer.from(`\r\n--${boundary}--\r\n`));
        const whole = Buffer.concat(chunks);
        state.multipartAnswers.push(path);
        const sent = fault === 'truncate' ? whole.subarray(0, Math.floor(whole.length / 2)) : whole;
        res.writeHead(206, {
          ...headers,
          'Content-Type': `multipart/byteranges; boundary=${boundary}`,
          'Content-Length': sent.length,
        });
        const half = sent.subarray(0, Math.floor(sent.length / 2));
        if (fault === 'stall-body') {
          res.write(half);
          stalled.add(res);
        } else if (fault === 'reset') res.write(half, () => res.destroy());
        else res.end(sent);
        return;
      }
      let start = 0;
      let end = size - 1;
      let status = 200;
      const m = req.headers.range ? /^bytes=(\d+)-(\d*)$/.exec(req.headers.range) : null;
      if (m && fault !== 'ignore-range') {
        start = Number(m[1]);
        end = m[2] ? Math.min(size - 1, Number(m[2])) : size - 1;
        if (start >= size) return void res.writeHead(416, { ...headers, 'Content-Range': `bytes */${size}` }).end();
        status = 206;
      }
      state.onRequest?.(path);
      if (fault === 'stall-headers') {
        stalled.add(res);
        return;
      }
      let body = bytes.subarray(start, end + 1);
      if (fault === 'wrong-start' && status === 206) {
        start += 16;
        end = Math.min(size - 1, end + 16);
        body = bytes.subarray(start, end + 1);
      }
      if (fault === 'short' && status === 206 && end > start) {
        end = start + Math.floor((end - start) / 2);
        body = bytes.subarray(start, end + 1);
      }
      if (fault === 'shifted' && status === 206) {
        const from = Math.min(size, start + 4096);
        body = Buffer.concat([
          bytes.subarray(from, from + body.length),
          Buffer.alloc(Math.max(0, body.length - (size - from))),
        ]);
      }
      const total = fault === 'wrong-total' ? size + 1000 : size;
      if (status === 206) headers['Content-Range'] = `bytes ${start}-${end}/${total}`;
      const half = body.subarray(0, Math.floor(body.length / 2));
      if (fault === 'truncate') {
        res.writeHead(status, { ...headers, 'Content-Length': half.length }).end(half);
        return;
      }
      res.writeHead(status, { ...headers, 'Content-Length': body.length });
      if (fault === 'stall-body') {
        res.write(half);
        stalled.add(res);
        return;
      }
      if (fault === 'reset') {
        res.write(half, () => res.destroy());
        return;
      }
      if (fault === 'drip') {
        stalled.add(res);
        for (let at = 0; at < body.length && !res.destroyed; at += 64) {
          res.write(body.subarray(at, at + 64));
          await new Promise((r) => setTimeout(r, 40));
        }
        stalled.delete(res);
        res.end();
        return;
      }
      res.end(body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return state;
}

/** Several ascending ranges of a `Range` header, each inside the file; null for one range or anything else. */
function severalRanges(header: string | undefined, size: number): Array<{ start: number; end: number }> | null {
  const m = header ? /^bytes=(\d+-\d+(?:,\s*\d+-\d+)+)$/.exec(header) : null;
  if (!m) return null;
  const ranges = m[1]!.split(',').map((r) => {
    const [a, b] = r.trim().split('-').map(Number) as [number, number];
    return { start: a, end: Math.min(b, size - 1) };
  });
  return ranges.every((r, i) => r.start <= r.end && (i === 0 || r.start > ranges[i - 1]!.end)) ? ranges : null;
}
