import { defineConfig } from 'vite';
import { precacheManifest } from './scripts/vite-precache-plugin.ts';
import { climateQuery } from './src/vite/climate-query-plugin.ts';

// Relative base so the built site works from any static host and sub-path.
export default defineConfig({
  base: './',
  // Tests build the site without copying the (large, generated) demo dataset.
  publicDir: process.env.CQ_NO_PUBLIC ? false : 'public',
  // The service worker at the root as sw.js, in dev and in a build: the same plugin apps use
  // (climate-query/vite), pointed at this repository's source.
  plugins: [climateQuery({ serviceWorker: '/src/sw/service-worker.ts' }), precacheManifest()],
  build: {
    target: 'es2022',
    rollupOptions: {
      input: { main: 'index.html' },
      output: {
        entryFileNames: 'assets/[name]-[hash].js',
        // MapLibre's worker ships as .mjs; Debian's nginx (and other mime.types lists) have no
        // .mjs type and serve it as octet-stream, which Chromium refuses as a module worker.
        // Every host knows .js.
        assetFileNames: (asset) =>
          (asset.names[0] ?? '').endsWith('.mjs') ? 'assets/[name]-[hash].js' : 'assets/[name]-[hash][extname]',
      },
    },
  },
  worker: { format: 'es' },
  optimizeDeps: { exclude: ['@duckdb/duckdb-wasm'] },
});
