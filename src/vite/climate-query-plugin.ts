/**
 * A Vite plugin for apps that use climate-query (`climate-query/vite`): the
 * service worker at the site's root as `sw.js`, in `vite dev` and in
 * `vite build`, and the dependency settings the library needs in dev.
 *
 * Without it a consumer's dev server had no `sw.js` (its SPA fallback
 * answered index.html, "unsupported MIME type ('text/html')"), and
 * excluding the package from pre-bundling, as the worker needs, left its
 * CommonJS dependency GeographicLib unconverted ("Cannot read properties of
 * undefined (reading 'WGS84')").
 */
import type { Plugin, UserConfig } from 'vite';

/**
 * Dependencies the engine imports only in its Worker and service worker, hyparquet's page modules by
 * path among them (src/stations/column-decoder.ts). Vite's dev server pre-bundles a dependency when
 * it first sees it imported; these it saw only once the page had started the Worker, so it bundled
 * again and reloaded, and on a fresh clone the first `npm start` never had a working engine. Listed,
 * they are bundled before the page loads.
 */
export const WORKER_DEPENDENCIES = [
  // The raster reader, loaded with the first layer query: unlisted, a fresh clone's first layer query
  // under the dev server found it late and Vite reloaded the page mid-query.
  'geotiff',
  'hyparquet',
  'hyparquet-compressors',
  'fzstd',
  // Codecs of published Zarr stores (src/rasters/zarr-codecs.ts), loaded when a store needs them.
  'numcodecs/blosc',
  'numcodecs/lz4',
  'hyparquet/src/column.js',
  'hyparquet/src/datapage.js',
  'hyparquet/src/plain.js',
  'hyparquet/src/schema.js',
] as const;

/** Options of {@link climateQuery}. */
export interface ClimateQueryPluginOptions {
  /** Module id of the service worker; default the package's own, `climate-query/service-worker`. */
  serviceWorker?: string;
  /** Name of the service worker at the site's root (default `sw.js`); pass the same URL to `registerClimateServiceWorker`. */
  fileName?: string;
}

/** The plugin: add it to `plugins` in vite.config.ts (docs/library.md, "Vite"). */
export function climateQuery(options: ClimateQueryPluginOptions = {}): Plugin {
  const id = options.serviceWorker ?? 'climate-query/service-worker';
  const fileName = options.fileName ?? 'sw.js';
  const ownPackage = id.startsWith('climate-query');
  let base = '/';
  let isAppBuild = false;
  return {
    name: 'climate-query',
    config(): UserConfig {
      return {
        worker: { format: 'es' },
        // The engine Worker is bundled from the package as it is (its `new Worker(new URL(…))` must stay
        // visible to Vite); its CommonJS dependency is pre-bundled on its own.
        optimizeDeps: ownPackage
          ? {
              exclude: ['climate-query', '@duckdb/duckdb-wasm'],
              include: [
                'climate-query > geographiclib-geodesic',
                ...WORKER_DEPENDENCIES.map((d) => `climate-query > ${d}`),
              ],
            }
          : { include: [...WORKER_DEPENDENCIES] },
      };
    },
    configResolved(config) {
      base = config.base.startsWith('/') ? config.base : '/';
      isAppBuild = config.command === 'build' && !config.build.ssr && !config.build.lib;
    },
    buildStart() {
      // A chunk of the build like any other, but at a fixed name at the root: a service worker's scope is its folder.
      if (isAppBuild) this.emitFile({ type: 'chunk', id, fileName });
    },
    configureServer(server) {
      // In dev, sw.js is a one-line module importing the real one through Vite (registered with type "module").
      server.middlewares.use(async (req, res, next) => {
        const path = (req.url ?? '').split('?')[0];
        if (path !== `${base}${fileName}`) return next();
        try {
          const resolved = await server.pluginContainer.resolveId(id);
          if (!resolved) throw new Error(`Cannot resolve ${id}; is climate-query installed?`);
          const url =
            resolved.id.startsWith('/') && !resolved.id.startsWith(server.config.root)
              ? `/@fs${resolved.id}`
              : resolved.id.slice(server.config.root.length) || resolved.id;
          res.setHeader('Content-Type', 'text/javascript');
          res.setHeader('Cache-Control', 'no-cache');
          res.setHeader('Service-Worker-Allowed', base);
          res.end(`import ${JSON.stringify(url)};\n`);
        } catch (err) {
          next(err);
        }
      });
    },
  };
}
