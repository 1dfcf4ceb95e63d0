/**
 * The work folders commands make in the system's temp folder (a build's DuckDB spill, a raster
 * build's raw year, an import's CSVs: gigabytes at the real size). Each is named by its kind and
 * its process's pid, and is removed by its command when it ends; a command killed with SIGKILL
 * cannot, so each new work folder first removes those of processes that are gone. A folder is
 * taken as gone only when its pid names no process here and it has not changed for an hour (a
 * process of another PID namespace sharing the temp folder is not seen by its pid).
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How long a dead process's work folder is left alone, ms. */
export const ABANDONED_AFTER_MS = 60 * 60 * 1000;

const WORK_NAME = /^climate-query-[a-z][a-z-]*?-(\d+)-[A-Za-z0-9]{6}$/;

/** A new work folder for `kind` (letters and '-'), after the abandoned ones are removed. */
export async function workFolder(kind: string): Promise<string> {
  await removeAbandoned();
  return mkdtemp(join(tmpdir(), `climate-query-${kind}-${process.pid}-`));
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // Another user's process is alive too.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the work folders of processes that are gone; returns their names. Never throws. */
export async function removeAbandoned(now = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(tmpdir()).catch(() => [] as string[])) {
    const m = WORK_NAME.exec(name);
    if (!m || alive(Number(m[1]))) continue;
    const path = join(tmpdir(), name);
    const info = await stat(path).catch(() => null);
    if (!info?.isDirectory() || now - info.mtimeMs < ABANDONED_AFTER_MS) continue;
    await rm(path, { recursive: true, force: true }).then(
      () => removed.push(name),
      () => undefined,
    );
  }
  return removed;
}
