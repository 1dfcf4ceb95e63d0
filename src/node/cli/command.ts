/**
 * What every command of the CLI shares: its description ({@link CliCommand}),
 * argument parsing with `-h/--help` and usage errors, `--timeout`, stdin.
 * Each command is one module beside this one; src/node/cli.ts dispatches.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { exitStatusOfCode } from '../cli-exit.ts';

/** One command: its name, its usage (printed by `--help`, exit 0, and after a usage error, exit 2), and what it runs. */
export interface CliCommand {
  name: string;
  usage: string;
  /** Runs the command with the arguments after its name; resolves with the exit status. */
  run(args: string[]): Promise<number>;
}

/** What parsing needs of a command: its name and usage. */
export type Help = Pick<CliCommand, 'name' | 'usage'>;

/** "a, b or c". */
export const orList = (xs: readonly string[]): string =>
  xs.length > 1 ? `${xs.slice(0, -1).join(', ')} or ${xs.at(-1)}` : xs.join('');

/** `items` joined by ", " in lines of at most `width` characters, every line after the first indented by `indent`. */
export function wrapList(items: readonly string[], indent: string, width = 100): string {
  const lines: string[] = [];
  let line = '';
  for (const item of items) {
    const next = line ? `${line}, ${item}` : item;
    if (line && indent.length + next.length + 1 > width) {
      lines.push(`${line},`);
      line = item;
    } else line = next;
  }
  lines.push(line);
  return lines.join(`\n${indent}`);
}

/** Thrown by {@link parseCommand} to end a command early with `status` (help: 0, usage error: 2). */
export class UsageExit extends Error {
  constructor(readonly status: number) {
    super(`usage exit ${status}`);
  }
}

/**
 * `parseArgs` for one command, plus what every command shares: `-h/--help`
 * prints its usage (exit 0); an unknown option or a missing value prints the
 * problem and the usage on stderr (exit 2) instead of a stack.
 */
export function parseCommand<O extends NonNullable<ParseArgsConfig['options']>>(
  command: Help,
  args: string[],
  options: O,
): ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: O }>> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    // `--help` wins over a mistake elsewhere on the line.
    if (!args.includes('--help') && !args.includes('-h'))
      usageError(command, err instanceof Error ? err.message : String(err));
  }
  if (!parsed || (parsed.values as { help?: boolean }).help) {
    process.stdout.write(command.usage);
    throw new UsageExit(0);
  }
  return parsed as ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: O }>>;
}

/** Prints `message` and the command's usage on stderr and ends the command with exit 2. */
export function usageError(command: Help, message: string): never {
  process.stderr.write(`climate-query ${command.name}: ${message}\n\n${command.usage}`);
  throw new UsageExit(2);
}

/** Exit status of an answer (cli-exit.ts): 0 for 200, 2 for the request's fault, 1 for the data's or the machine's. */
export const exitStatusOf = exitStatusOfCode;

/** `--timeout SECONDS` as milliseconds (undefined: the engine's default). */
export function timeoutOption(command: Help, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const seconds = Number(text);
  if (text.trim() === '' || !(seconds > 0) || !Number.isFinite(seconds))
    usageError(command, `--timeout must be a number of seconds above 0; got "${text}".`);
  return seconds * 1000;
}

/** The whole of stdin as text (a request or SQL given as -). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
