/**
 * Static files of a dataset over HTTP with what the engine needs from a
 * host: `Range` (206, 416), `HEAD` with `Content-Length`, `Accept-Ranges`,
 * and CORS so a page on another origin can read the dataset.
 */
import { constants } from 'node:fs';
import { open, realpath, stat, type FileHandle } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, relative, sep } from 'node:path';
import { randomBytes } from 'node:crypto';
import { pipeline } from 'node:stream';
import { ClimateQueryError } from '../contract/errors.ts';
import { byteRangesBody } from '../io/byte-ranges.ts';

const TYPES: Record<string, string> = {
  '.json': 'application/json',
  '.tif': 'image/tiff',
  '.tiff': 'image/tiff',
  '.parquet': 'application/vnd.apache.parquet',
  '.duckdb': 'application/octet-stream',
  '.png': 'image/png',
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.wasm': 'application/wasm',
  '.geojson': 'application/geo+json',
};

/** Headers of every answer, including errors: CORS, and no MIME sniffing. */
export const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, HEAD, POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Content-Type, Range',
  'Access-Control-Expose-Headers': 'Content-Length, Content-Range, Accept-Ranges, ETag',
  // Every answer, files and errors alike: no browser may guess another type.
  'X-Content-Type-Options': 'nosniff',
};

/**
 * Reads a `Range` header against a file of `size` bytes: one satisfiable
 * range, `null` when unsatisfiable (416), `undefined` when the whole file
 * should be sent (200): no header, a header that is not a valid
 * `bytes=` set (RFC 9110 §14.2 says ignore it), or several ranges of which
 * one is satisfiable ({@link parseRanges} reads those).
 */
export function parseRangeHeader(
  header: string | undefined,
  size: number,
): { start: number; end: number } | null | undefined {
  const r = parseRanges(header, size);
  return r === null || r === undefined ? r : r.length === 1 ? r[0] : undefined;
}

/** Most ranges one request may ask for and get as parts; more are answered with the whole file. */
export const MAX_RANGES = 100;

/**
 * Reads a `Range` header against a file of `size` bytes: the ranges to send
 * (several: a `multipart/byteranges` answer), `null` when none is
 * satisfiable (416), `undefined` when the whole file should be sent (200).
 * Several ranges are sent as parts only when every one is satisfiable, they
 * come in ascending order without overlapping, and there are at most
 * {@link MAX_RANGES}: that is what a reader planning its reads asks
 * (the engine merges near ranges itself), and anything else is answered
 * whole, as RFC 9110 allows, so no request makes the server send a file's
 * bytes many times over.
 */
export function parseRanges(
  header: string | undefined,
  size: number,
): Array<{ start: number; end: number }> | null | undefined {
  if (!header) return undefined;
  const m = /^bytes=(.*)$/i.exec(header.trim());
  if (!m) return undefined;
  const specs = m[1]!.split(',').map((s) => s.trim());
  const ranges: ({ start: number; end: number } | null)[] = [];
  for (const spec of specs) {
    const r = /^(\d*)-(\d*)$/.exec(spec);
    if (!r || (r[1] === '' && r[2] === '')) return undefined;
    ranges.push(oneRange(r[1]!, r[2]!, size));
  }
  const satisfiable = ranges.filter((r) => r !== null);
  if (satisfiable.length === 0) return null;
  if (ranges.length === 1) return satisfiable;
  const ordered =
    satisfiable.length === ranges.length && satisfiable.every((r, i) => i === 0 || r.start > satisfiable[i - 1]!.end);
  return ordered && ranges.length <= MAX_RANGES ? satisfiable : undefined;
}

function oneRange(first: string, last: string, size: number): { start: number; end: number } | null {
  let start: number;
  let end: number;
  if (first === '') {
    // Suffix range: the last n bytes.
    const n = Number(last);
    if (n === 0) return null;
    start = Math.max(0, size - n);
    end = size - 1;
  } else {
    start = Number(first);
    end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
    if (last !== '' && Number(last) < start) return null;
  }
  if (start >= size || start > end) return null;
  return { start, end };
}

/**
 * Serves `urlPath` from folder `root` (GET/HEAD); a folder answers its
 * `index.html` (`/dir` is redirected to `/dir/` first). Returns false when the
 * path is not a readable file inside the root (missing, a folder without
 * index.html, a symlink leading out unless `followLinks`), so the caller can answer 404 its own way; a file that
 * exists but cannot be read is answered here, 503 `dataset_unavailable`
 * JSON. Never throws and never lets a file-system race crash the process:
 * the file is opened first and then only its handle is used, so a rename
 * or delete after the open changes nothing, and one before it is a 404.
 */
export async function serveStatic(
  root: string,
  urlPath: string,
  req: IncomingMessage,
  res: ServerResponse,
  options: { followLinks?: boolean; allowed?: (relPath: string) => boolean | Promise<boolean> } = {},
): Promise<boolean> {
  const missing = false;
  let rel: string;
  try {
    rel = decodeURIComponent(urlPath);
  } catch {
    return missing;
  }
  if (rel.includes('\0')) return missing;
  // Never a dotfile (.env, .git/config: readable by any page, as every answer allows any origin), but a
  // Zarr store's own metadata, which GDAL and xarray read over HTTP.
  if (hiddenPath(rel)) return missing;
  if (options.allowed && !(await options.allowed(rel.replace(/^\/+/, '')))) return missing;
  const file = normalize(join(root, rel));
  if (!inside(root, file)) return missing;
  let handle: FileHandle;
  try {
    // Symlinks: the real path must still be inside the real root, and the
    // open follows no link in its last component. O_NONBLOCK: opening a
    // FIFO placed in the folder must not block a libuv thread forever (it
    // is then refused as not a file); it changes nothing for regular files.
    const [realRoot, realFile] = await Promise.all([realpath(root), realpath(file)]);
    if (!options.followLinks) {
      if (!inside(realRoot, realFile)) return missing;
      // What is served is the file, not what the URL names: a link inside the folder to a dotfile
      // (.env, .git/config) is refused as the dotfile is, and a dataset (`allowed`) serves no link at
      // all, so a store cannot answer one key with another file's bytes.
      const realRel = relative(realRoot, realFile).split(sep).join('/');
      if (hiddenPath(realRel)) return missing;
      if (options.allowed && realFile !== normalize(join(realRoot, rel)).replace(/(.)\/+$/, '$1')) return missing;
    }
    handle = await open(realFile, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    return miss(err, res);
  }
  let info;
  try {
    info = await handle.stat();
  } catch (err) {
    await handle.close().catch(() => undefined);
    return miss(err, res);
  }
  if (!info.isFile()) {
    await handle.close().catch(() => undefined);
    if (!info.isDirectory()) return missing;
    // A folder answers its index.html, as every common static host does (the built app opens at `/`).
    // Without the trailing slash, relative links of that page would resolve one level up: redirect first.
    if (!urlPath.endsWith('/')) {
      if (!(await fileExists(join(file, 'index.html')))) return missing;
      const search = req.url?.includes('?') ? req.url.slice(req.url.indexOf('?')) : '';
      res.writeHead(301, { ...CORS_HEADERS, Location: `${urlPath}/${search}`, 'Content-Length': 0 });
      res.end();
      return true;
    }
    return serveStatic(root, `${urlPath}index.html`, req, res);
  }
  const size = info.size;
  const etag = `"${size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
  const headers: Record<string, string | number> = {
    ...CORS_HEADERS,
    'Accept-Ranges': 'bytes',
    'Content-Type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
    ETag: etag,
    'Cache-Control': 'no-cache',
  };
  const ranges = parseRanges(req.headers.range, size);
  if (ranges === null) {
    await handle.close().catch(() => undefined);
    res.writeHead(416, { ...headers, 'Content-Range': `bytes */${size}` });
    res.end();
    return true;
  }
  if (ranges && ranges.length > 1) {
    await sendParts(handle, ranges, size, headers, req, res);
    return true;
  }
  const range = ranges?.[0];
  const { start, end } = range ?? { start: 0, end: size - 1 };
  const length = size === 0 ? 0 : end - start + 1;
  res.writeHead(range ? 206 : 200, {
    ...headers,
    'Content-Length': length,
    ...(range ? { 'Content-Range': `bytes ${start}-${end}/${size}` } : {}),
  });
  if (req.method === 'HEAD' || length === 0) {
    await handle.close().catch(() => undefined);
    res.end();
    return true;
  }
  // pipeline destroys both sides on an error of either (a read error after
  // the headers can only cut the body short) and closes the handle.
  pipeline(handle.createReadStream({ start, end, autoClose: true }), res, () => undefined);
  return true;
}

/**
 * Answers several ranges as one `multipart/byteranges` body (RFC 9110 §14.6), read from the open
 * `handle` part by part. A read error after the headers can only cut the body short: the
 * connection is then destroyed, so the client sees a short body, never wrong bytes.
 */
async function sendParts(
  handle: FileHandle,
  ranges: ReadonlyArray<{ start: number; end: number }>,
  size: number,
  headers: Record<string, string | number>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const boundary = randomBytes(12).toString('hex');
  const body = byteRangesBody(ranges, size, String(headers['Content-Type']), boundary);
  let whole = true;
  try {
    res.writeHead(206, {
      ...headers,
      'Content-Type': `multipart/byteranges; boundary=${boundary}`,
      'Content-Length': body.length,
    });
    if (req.method !== 'HEAD') {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      for (const [i, r] of ranges.entries()) {
        await write(res, body.heads[i]!);
        for (let at = r.start; at <= r.end; ) {
          const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, r.end - at + 1), at);
          if (bytesRead === 0) throw new Error('the file ended early');
          await write(res, chunk.subarray(0, bytesRead));
          at += bytesRead;
        }
      }
      await write(res, body.tail);
    }
  } catch {
    whole = false;
  } finally {
    await handle.close().catch(() => undefined);
  }
  if (whole) res.end();
  else res.destroy();
}

/** Writes to `res`, waiting while its buffer is full; rejects when the client has gone. */
function write(res: ServerResponse, data: string | Uint8Array): Promise<void> {
  if (res.destroyed) return Promise.reject(new Error('the client closed the connection'));
  // The chunk is copied now: the caller reuses its buffer.
  if (res.write(typeof data === 'string' ? data : Buffer.from(data))) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = (err?: Error) => {
      res.off('drain', ok);
      res.off('close', gone);
      if (err) reject(err);
      else resolve();
    };
    const ok = () => done();
    const gone = () => done(new Error('the client closed the connection'));
    res.once('drain', ok);
    res.once('close', gone);
  });
}

async function fileExists(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

function inside(root: string, file: string): boolean {
  return file === root || file.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** false (a 404 for the caller) for a path that is not there; 503 JSON, answered here, for one that cannot be read. */
function miss(err: unknown, res: ServerResponse): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP' || code === 'EISDIR' || code === 'ENAMETOOLONG')
    return false;
  const e = new ClimateQueryError(
    'dataset_unavailable',
    `The file could not be read (${code ?? 'error'}); check its permissions, or try again.`,
  );
  const text = JSON.stringify(e.toBody());
  res.writeHead(e.status, {
    ...CORS_HEADERS,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
  return true;
}

/** The metadata files of a Zarr v2 store, the only names starting with "." that are served (inside a `.zarr` folder). */
const ZARR_METADATA = new Set(['.zmetadata', '.zarray', '.zattrs', '.zgroup']);

/** Whether `relPath` has a segment starting with "." (a dotfile or dot-folder), other than a Zarr store's metadata. */
export function hiddenPath(relPath: string): boolean {
  const parts = relPath.split('/').filter((p) => p !== '');
  return parts.some(
    (p, i) => p.startsWith('.') && !(ZARR_METADATA.has(p) && parts.slice(0, i).some((q) => q.endsWith('.zarr'))),
  );
}
