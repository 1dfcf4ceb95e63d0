/**
 * `climate-query serve` as a user runs it: a real process on loopback, with
 * the port chosen by the OS and read from what serve prints.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

const BIN = join(import.meta.dirname, '../../bin/climate-query.js');

/** A running serve process. */
export interface ServeProcess {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** Base URL ending in "/". */
  url: string;
  /** Everything serve printed on stderr so far. */
  stderr(): string;
}

/** Starts `climate-query serve --data <dataset> --port 0 …args`; rejects with its output if it exits first. */
export async function startServeProcess(dataset: string, args: string[] = []): Promise<ServeProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', '--data', dataset, '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      const m = /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stderr);
      if (m) resolve(m[1]!);
    });
    child.on('exit', () => reject(new Error(`serve exited early: ${stderr}`)));
  });
  return { child, url, stderr: () => stderr };
}
