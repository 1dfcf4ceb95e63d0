import { defineConfig, type Plugin, type ViteDevServer } from 'vite';
import { precacheManifest } from './scripts/vite-precache-plugin.ts';

/**
 * The service worker must be served from the scope root as /sw.js (a
 * worker's scope cannot be above its script). In dev it is compiled on
 * request from src/sw/service-worker.ts; in a build it is its own entry,
 * emitted as sw.js at the root of dist/.
 */
function serviceWorkerAtRoot(): Plugin {
  return {
    name: 'climate-query-service-worker',
    configureServer(server: ViteDevServer) {
      server.middlewares.use('/sw.js', (req, res, next) => {
        if (req.url !== '/' && req.url !== '' && !req.url?.startsWith('/?')) return next();
        server
          .transformRequest('/src/sw/service-worker.ts')
          .then((result) => {
            res.setHeader('Content-Type', 'text/javascript');
            res.setHeader('Service-Worker-Allowed', '/');
            res.end(result?.code ?? '');
          })
          .catch(next);
      });
    },
  };
}

// Relative base so the built site works from any static host and sub-path.
export default defineConfig({
  base: './',
  // Tests build the site without copying the (large, generated) demo dataset.
  publicDir: process.env.CQ_NO_PUBLIC ? false : 'public',
  plugins: [serviceWorkerAtRoot(), precacheManifest()],
  build: {
    target: 'es2022',
    rollupOptions: {
      input: { main: 'index.html', sw: 'src/sw/service-worker.ts' },
      output: {
        entryFileNames: (chunk) => (chunk.name === 'sw' ? 'sw.js' : 'assets/[name]-[hash].js'),
        // MapLibre's worker ships as .mjs; Debian's nginx (and other mime.types lists) have no
        // .mjs type and serve it as octet-stream, which Chromium refuses as a module worker.
        // Every host knows .js.
        assetFileNames: (asset) => ((asset.names[0] ?? '').endsWith('.mjs') ? 'assets/[name]-[hash].js' : 'assets/[name]-[hash][extname]'),
      },
    },
  },
  worker: { format: 'es' },
  optimizeDeps: { exclude: ['@duckdb/duckdb-wasm'] },
});
