/** `climate-query demo`: write the synthetic demo dataset. */
import { existsSync } from 'node:fs';
import { DEFAULT_DATASET } from '../demo.ts';
import { type CliCommand, type Help, parseCommand, usageError } from './command.ts';

const HELP: Help = {
  name: 'demo',
  usage: `Usage: climate-query demo [--out DIR] [--if-missing]

  Writes the synthetic demo dataset (default ${DEFAULT_DATASET}).

Options:
  --out DIR        where to write it
  --if-missing     do nothing when DIR/catalog.json exists
  -h, --help       this help

Exit codes:
  0  written (or present, with --if-missing)
  1  the build failed
  2  bad arguments
`,
};

async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(HELP, args, {
    out: { type: 'string' },
    'if-missing': { type: 'boolean' },
  });
  if (positionals.length > 0) usageError(HELP, `unexpected argument "${positionals[0]}".`);
  const out = values.out ?? DEFAULT_DATASET;
  if (values['if-missing'] && existsSync(`${out}/catalog.json`)) {
    process.stderr.write(`Demo dataset present at ${out}.\n`);
    return 0;
  }
  const { buildDemo } = await import('../demo.ts');
  await buildDemo(out, (line) => process.stderr.write(`${line}\n`));
  return 0;
}

/** The `demo` command. */
export const demoCommand: CliCommand = { ...HELP, run };
