import { defineConfig } from 'vite';
import pkg from './package.json' with { type: 'json' };

// The browser library (`climate-query`, `climate-query/worker`,
// `climate-query/service-worker`) as plain ES modules. Dependencies and the
// optional peer dependencies stay external so an app's bundler dedupes them
// and resolves DuckDB's `?url` assets itself.
const external = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies)].map(
  (d) => new RegExp(`^${d.replace(/[/.]/g, '\\$&')}(/|$)`),
);

export default defineConfig({
  publicDir: false,
  build: {
    outDir: 'dist/lib',
    emptyOutDir: true,
    target: 'es2022',
    minify: false,
    sourcemap: true,
    lib: {
      entry: {
        index: 'src/index.ts',
        worker: 'src/worker/engine-worker.ts',
        'service-worker': 'src/sw/service-worker.ts',
        'sql-wasm': 'src/sql/duckdb-wasm-runner.ts',
      },
      formats: ['es'],
    },
    rollupOptions: { external },
  },
  worker: { format: 'es', rollupOptions: { external } },
});
