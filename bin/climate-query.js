#!/usr/bin/env node
// The `climate-query` command. In a clone it runs the TypeScript sources
// through tsx (a devDependency), so no build step is needed; an installed
// package runs the CLI compiled at pack time (dist/node/cli.js).
import { existsSync } from 'node:fs';

// A reader that stops early (`climate-query query … | head`) closes the pipe:
// end quietly rather than print an EPIPE stack.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

const source = new URL('../src/node/cli.ts', import.meta.url);
const compiled = new URL('../dist/node/cli.js', import.meta.url);
let cli;
if (
  existsSync(source) &&
  (await import('tsx/esm/api').then(
    (tsx) => (tsx.register(), true),
    () => false,
  ))
) {
  cli = await import(source.href);
} else if (existsSync(compiled)) {
  cli = await import(compiled.href);
} else {
  process.stderr.write(
    'climate-query: neither tsx (run `npm install` in the clone) nor the compiled CLI (`npm run build:lib`) is available.\n',
  );
  process.exit(1);
}
process.exitCode = await cli.main(process.argv.slice(2));
