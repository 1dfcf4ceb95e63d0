/**
 * `climate-query serve`: the four POST routes through the engine's router,
 * and the dataset's static files with Range/HEAD, from one process. So one
 * command serves a deployable dataset and its API.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { ClimateQueryError } from '../contract/errors.ts';
import type { ClimateEngine } from '../engine/engine.ts';
import { MAX_BODY_BYTES, endpointOf } from '../engine/router.ts';
import { CORS_HEADERS, serveStatic } from './static-files.ts';
import { openApiDocument } from '../engine/openapi.ts';
import { packageVersion } from './package-version.ts';

/** Options of {@link startServer}. */
export interface ServerOptions {
  engine: ClimateEngine;
  /** Folder whose files are served as static files (the dataset); omit for API only. */
  staticRoot?: string;
  port?: number;
  /** Default 127.0.0.1: loopback only, unless you choose otherwise. */
  host?: string;
}

/** A running server. */
export interface RunningServer {
  server: Server;
  /** Base URL, e.g. http://127.0.0.1:8787/ */
  url: string;
  close(): Promise<void>;
}

function sendJson(res: import('node:http').ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...CORS_HEADERS, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
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
      if (size > MAX_BODY_BYTES) over = true;
      else chunks.push(c);
    });
    req.on('end', () => resolvePromise(over ? null : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Starts the server and resolves once it listens. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const root = options.staticRoot ? resolve(options.staticRoot) : undefined;
  // The description of the routes (GET /api/openapi.json), built on first ask.
  let openApi: Record<string, unknown> | undefined;
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const method = req.method ?? 'GET';
      if (method === 'OPTIONS') {
        res.writeHead(204, CORS_HEADERS);
        res.end();
        return;
      }
      if ((method === 'GET' || method === 'HEAD') && url.pathname.endsWith('/api/openapi.json')) {
        sendJson(res, 200, (openApi ??= openApiDocument(packageVersion())));
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
          const e = new ClimateQueryError('body_too_large', `The request body is larger than ${MAX_BODY_BYTES} bytes.`);
          sendJson(res, e.status, e.toBody());
          return;
        }
        const answer = await options.engine.handle({ method, path: url.pathname, body }, { signal: controller.signal });
        sendJson(res, answer.status, answer.body);
        return;
      }
      if ((method === 'GET' || method === 'HEAD') && root && (await serveStatic(root, url.pathname, req, res))) return;
      const e = new ClimateQueryError('not_found', `Nothing at ${url.pathname}.`);
      sendJson(res, e.status, e.toBody());
    })().catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, new ClimateQueryError('internal', String(err)).toBody());
      else res.destroy();
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
