/** Runs the `climate-query` CLI as a user does (`node bin/climate-query.js …`) and returns what it printed. */
import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';

/** The CLI's entry point. */
export const BIN = join(import.meta.dirname, '../../bin/climate-query.js');

/** What one run printed, and its exit code. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with `args` (and `input` on stdin); never rejects: a failing run is its exit code. Killed after 5 minutes. */
export function cli(args: string[], input?: string): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { maxBuffer: 256 * 1024 * 1024, timeout: 300_000 },
      (err, stdout, stderr) => {
        const code = err
          ? typeof (err as { code?: unknown }).code === 'number'
            ? (err as { code: number }).code
            : 1
          : 0;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin!.end(input ?? '');
  });
}

/** Runs the CLI with `args` and kills it (SIGKILL, no clean-up) after `ms`; resolves with its exit code (null: killed). */
export function cliKilledAfter(args: string[], ms: number): Promise<number | null> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: 'ignore' });
  const exited = new Promise<number | null>((ok) => child.on('exit', (code) => ok(code)));
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  return exited.finally(() => clearTimeout(timer));
}
