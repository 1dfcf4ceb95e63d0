// Real Chromium (Debian's, via playwright-core) and a real Vite dev server
// of this repository, with a dataset folder mounted at /test-data/ through
// the same Range-capable static handler `climate-query serve` uses.
import { existsSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { chromium, type Browser } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { serveStatic } from '../../src/node/static-files.ts';

/** Where Chromium is; .ci/run installs Debian's package there. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Launches headless Chromium with WebGL through SwiftShader (MapLibre needs it). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}. Install it with \`apt-get install chromium\` (.ci/run does) or set CHROMIUM_PATH.`,
    );
  }
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--use-angle=swiftshader',
      '--enable-unsafe-swiftshader',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
  // Two test workers each drawing maps in software on two cores: a first load of the app through
  // Vite's dev server has taken over 30 s (Playwright's default) on a loaded CI machine. Every page
  // gets a minute to navigate; each test still has its own time limit.
  const newPage = browser.newPage.bind(browser);
  browser.newPage = async (...args: Parameters<Browser['newPage']>) => {
    const page = await newPage(...args);
    page.setDefaultNavigationTimeout(60_000);
    return page;
  };
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (...args: Parameters<Browser['newContext']>) => {
    const context = await newContext(...args);
    context.setDefaultNavigationTimeout(60_000);
    return context;
  };
  return browser;
}

/** Starts Vite on the repository root, with `datasets` mounted as /<name>/. */
export async function startVite(
  datasets: Record<string, string>,
  options: {
    withoutPublic?: boolean;
    /** Sees every request first (a connect middleware): may answer it, hold it, or pass it on with `next()`. */
    onRequest?: (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
    /** As `npm start` runs it: hot reload on, and this (empty) dependency cache, as on a fresh clone. */
    asNpmStart?: { cacheDir: string };
  } = {},
): Promise<{ server: ViteDevServer; url: string }> {
  const server = await createServer({
    root: new URL('../..', import.meta.url).pathname,
    // withoutPublic: as on a fresh clone, whatever `npm start` left in public/ (the demo dataset) is not served.
    ...(options.withoutPublic ? { publicDir: false as const } : {}),
    logLevel: 'error',
    ...(options.asNpmStart ? { cacheDir: options.asNpmStart.cacheDir } : {}),
    server: { host: '127.0.0.1', port: 0, strictPort: false, hmr: Boolean(options.asNpmStart) },
    plugins: [
      {
        name: 'test-datasets',
        configureServer(s) {
          const { onRequest } = options;
          if (onRequest) s.middlewares.use((req, res, next) => onRequest(req, res, () => next()));
          for (const [name, dir] of Object.entries(datasets)) {
            s.middlewares.use(`/${name}`, (req, res, next) => {
              const path = new URL(req.url ?? '/', 'http://x').pathname;
              serveStatic(dir, path, req, res).then((done) => (done ? undefined : next()), next);
            });
          }
        },
      },
    ],
  });
  await server.listen();
  const addr = server.httpServer!.address() as { port: number };
  return { server, url: `http://127.0.0.1:${addr.port}/` };
}

/**
 * The built site (`npm run build`, made once per test run by test/global-setup.ts) served from
 * `site` with `datasets` mounted as /<name>/, as a static host serves it: 17 requests open the app
 * where Vite's dev server answers 190 module requests, a second sooner a page on two loaded cores.
 * For tests of what the app does; those of the dev server itself (`npm start`) use {@link startVite}.
 */
export async function startBuiltApp(
  site: string,
  datasets: Record<string, string>,
  options: { onRequest?: (req: IncomingMessage, res: ServerResponse, next: () => void) => void } = {},
): Promise<{ server: { close(): Promise<void> }; url: string }> {
  // Longest mount first, so /data/demo-2/ is not served from /data/demo.
  const mounts = Object.entries(datasets).sort(([a], [b]) => b.length - a.length);
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    for (const [name, dir] of mounts) {
      const prefix = `/${name}`;
      if (path === prefix || path.startsWith(`${prefix}/`)) {
        if (await serveStatic(dir, path.slice(prefix.length) || '/', req, res)) return;
        res.writeHead(404).end();
        return;
      }
    }
    if (!(await serveStatic(site, path, req, res))) res.writeHead(404).end();
  };
  const server = createHttpServer((req, res) => {
    const go = () => void answer(req, res).catch(() => res.destroy());
    if (options.onRequest) options.onRequest(req, res, go);
    else go();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    server: {
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    },
    url: `http://127.0.0.1:${port}/`,
  };
}
