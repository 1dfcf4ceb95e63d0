import { defineConfig } from 'vite';

// The service worker must sit at the root of the site: build the package's
// service-worker module as its own entry named sw.js.
export default defineConfig({
  base: './',
  build: {
    rollupOptions: {
      input: { main: 'index.html', sw: 'climate-query/service-worker' },
      output: { entryFileNames: (c) => (c.name === 'sw' ? 'sw.js' : 'assets/[name]-[hash].js') },
    },
  },
  worker: { format: 'es' },
  optimizeDeps: { exclude: ['climate-query', '@duckdb/duckdb-wasm'] },
});
