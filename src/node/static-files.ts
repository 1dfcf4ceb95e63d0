/**
 * Static files of a dataset over HTTP with what the engine needs from a
 * host: `Range` (206, 416), `HEAD` with `Content-Length`, `Accept-Ranges`,
 * and CORS so a page on another origin can read the dataset.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

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

/** CORS headers for every answer, including errors. */
export const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, HEAD, POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Content-Type, Range',
  'Access-Control-Expose-Headers': 'Content-Length, Content-Range, Accept-Ranges, ETag',
};

/** Parses one `bytes=` range against a file of `size` bytes; null when unsatisfiable, undefined when absent. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | null | undefined {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  let start: number;
  let end: number;
  if (m[1] === '') {
    // Suffix range: the last n bytes.
    const n = Number(m[2]);
    if (n === 0) return null;
    start = Math.max(0, size - n);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return null;
  return { start, end };
}

/**
 * Serves `urlPath` from folder `root` (GET/HEAD). Returns false when the
 * path is not a file there, so the caller can answer 404 its own way.
 */
export async function serveStatic(root: string, urlPath: string, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  let rel: string;
  try {
    rel = decodeURIComponent(urlPath);
  } catch {
    return false;
  }
  const file = normalize(join(root, rel));
  if (file !== root && !file.startsWith(root.endsWith(sep) ? root : root + sep)) return false;
  let info;
  try {
    info = await stat(file);
  } catch {
    return false;
  }
  if (!info.isFile()) return false;
  const size = info.size;
  const etag = `"${size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
  const headers: Record<string, string | number> = {
    ...CORS_HEADERS,
    'Accept-Ranges': 'bytes',
    'Content-Type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
    ETag: etag,
    'Cache-Control': 'no-cache',
  };
  const range = parseRange(req.headers.range, size);
  if (range === null) {
    res.writeHead(416, { ...headers, 'Content-Range': `bytes */${size}` });
    res.end();
    return true;
  }
  const { start, end } = range ?? { start: 0, end: size - 1 };
  const length = size === 0 ? 0 : end - start + 1;
  res.writeHead(range ? 206 : 200, {
    ...headers,
    'Content-Length': length,
    ...(range ? { 'Content-Range': `bytes ${start}-${end}/${size}` } : {}),
  });
  if (req.method === 'HEAD' || length === 0) {
    res.end();
    return true;
  }
  createReadStream(file, { start, end }).pipe(res);
  return true;
}
