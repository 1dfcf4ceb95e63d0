// Builds the published library: browser modules (Vite library mode), the Node
// entry (Vite SSR build), and type declarations (tsc), with declaration
// imports rewritten from .ts to .js so every TypeScript setup resolves them.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'vite';

const run = (cmd, args) => execFileSync(cmd, args, { stdio: 'inherit' });
rmSync('dist/lib', { recursive: true, force: true });
rmSync('dist/node', { recursive: true, force: true });
run('npx', ['vite', 'build', '--config', 'vite.lib.config.ts', '--logLevel', 'warn']);
// Node entry, the Vite plugin (climate-query/vite) and the CLI (bin/climate-query.js runs dist/node/cli.js where
// tsx, a devDependency, is absent): dependencies stay external in an SSR build.
await build({
  configFile: false,
  publicDir: false,
  logLevel: 'warn',
  build: {
    ssr: true,
    outDir: 'dist/node',
    emptyOutDir: true,
    target: 'node20',
    minify: false,
    sourcemap: true,
    // Chunks beside the entries: src/node files find package.json and public/ at ../../.
    rollupOptions: {
      input: { index: 'src/node/index.ts', cli: 'src/node/cli.ts', vite: 'src/vite/climate-query-plugin.ts' },
      output: { chunkFileNames: '[name]-[hash].js' },
    },
  },
});
run('npx', ['tsc', '-p', 'tsconfig.lib.json']);

function walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (p.endsWith('.d.ts')) {
      const text = readFileSync(p, 'utf8')
        .replace(/(from\s+['"]\.{1,2}\/[^'"]+)\.ts(['"])/g, '$1.js$2')
        .replace(/(import\(['"]\.{1,2}\/[^'"]+)\.ts(['"]\))/g, '$1.js$2');
      writeFileSync(p, text);
    }
  }
}
walk('dist/lib/types');
console.log('library built: dist/lib (browser), dist/node (Node), dist/lib/types (declarations)');
