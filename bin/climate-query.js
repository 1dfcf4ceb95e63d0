#!/usr/bin/env node
// Runs the TypeScript CLI through tsx so a fresh clone needs no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/node/cli.ts');
process.exitCode = await main(process.argv.slice(2));
