/**
 * One writer at a time in a dataset folder. Every command that changes a
 * dataset (build, merge, index, remove, demo) holds this lock from before it
 * reads catalog.json until its old files are gone: two read-modify-writes of
 * catalog.json at once would keep one and silently drop the other's years.
 *
 * The lock is a file created exclusively (`O_EXCL`) naming its holder (pid,
 * host, command, start). A second writer is refused at once with who holds
 * it; a lock whose process is gone on this host is stale and taken over.
 * Readers (the engine, `serve`) never take it: they see the old catalog or
 * the new one whole (dataset-writer.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { link, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { BuildError } from '../build-error.ts';
import { readCatalogOrEmpty } from './dataset-writer.ts';
import { removeLeftovers } from './leftovers.ts';

/** The lock's file name in a dataset folder (a dotfile: never served, never listed). */
export const LOCK_FILE = '.climate-query.lock';

/** Who holds a lock. */
export interface LockHolder {
  pid: number;
  host: string;
  command: string;
  started: string;
}

/** A held lock: release it once, when the command is done (or failed). */
export interface DatasetLock {
  release(): Promise<void>;
}

/**
 * The folders whose lock the running command holds, per async call chain: a step of that command
 * (removeStations re-indexing) takes it again freely, while another command in the same process
 * (two builds started at once from a library) contends for the file like any other writer.
 */
const heldHere = new AsyncLocalStorage<ReadonlySet<string>>();

/** Whether process `pid` on this host still runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function holderOf(path: string): Promise<LockHolder | null> {
  try {
    const h = JSON.parse(await readFile(path, 'utf8')) as Partial<LockHolder>;
    return typeof h.pid === 'number' && typeof h.host === 'string'
      ? { pid: h.pid, host: h.host, command: String(h.command ?? '?'), started: String(h.started ?? '?') }
      : null;
  } catch {
    return null;
  }
}

/**
 * Takes the lock of dataset folder `dir` for `command` ("build --layer temp/mean"), creating the
 * folder when it is missing. Throws BuildError `dataset_busy` when another live process holds it.
 */
export async function lockDataset(dir: string, command: string): Promise<DatasetLock> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, LOCK_FILE);
  const me: LockHolder = { pid: process.pid, host: hostname(), command, started: new Date().toISOString() };
  // Written whole under a private name, then linked to the lock's name: link fails when the name
  // exists, so no writer ever sees a half-written lock.
  const draft = `${path}.${process.pid}.${Date.now()}`;
  await writeFile(draft, `${JSON.stringify(me)}\n`);
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await link(draft, path);
        return held(path, me);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const holder = await holderOf(path);
      const stale = holder !== null && holder.host === me.host && !alive(holder.pid);
      if (!stale || attempt > 0) throw busy(dir, holder);
      // Taken over: renamed aside (only one of two writers that both found it stale succeeds), then
      // checked to be the stale one and not a lock a third writer took in between.
      const aside = `${path}.stale.${process.pid}`;
      try {
        await rename(path, aside);
      } catch {
        throw busy(dir, await holderOf(path));
      }
      const moved = await holderOf(aside);
      if (moved?.pid !== holder.pid || moved.started !== holder.started) {
        await link(aside, path).catch(() => undefined);
        await unlink(aside).catch(() => undefined);
        throw busy(dir, moved);
      }
      await unlink(aside).catch(() => undefined);
    }
    throw busy(dir, await holderOf(path));
  } finally {
    await unlink(draft).catch(() => undefined);
  }
}

function held(path: string, me: LockHolder): DatasetLock {
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      // Only our own lock is removed (a lock taken over as stale is someone else's now).
      const h = await holderOf(path);
      if (h?.pid === me.pid && h.started === me.started) await unlink(path).catch(() => undefined);
    },
  };
}

function busy(dir: string, holder: LockHolder | null): BuildError {
  const who = holder
    ? `\`climate-query ${holder.command}\` (process ${holder.pid} on ${holder.host}, since ${holder.started})`
    : 'another climate-query command';
  return new BuildError(
    'dataset_busy',
    `${who} is changing the dataset at ${dir}; one command changes a dataset at a time. Wait for it to finish and run this again; nothing was changed. (If no such process runs, delete ${join(dir, LOCK_FILE)}.)`,
    { file: join(dir, LOCK_FILE) },
  );
}

/**
 * Runs `fn` holding the lock of `dir`, releasing it however `fn` ends. Taking the lock first
 * removes what killed commands left there (leftovers.ts); a catalog that cannot be read is left
 * for `fn` to report.
 */
export async function withDatasetLock<T>(dir: string, command: string, fn: () => Promise<T>): Promise<T> {
  const key = resolve(dir);
  const holding = heldHere.getStore();
  if (holding?.has(key)) return fn();
  const lock = await lockDataset(dir, command);
  try {
    const catalog = await readCatalogOrEmpty(dir, 'dataset').catch(() => undefined);
    if (catalog) await removeLeftovers(dir, catalog);
    return await heldHere.run(new Set([...(holding ?? []), key]), fn);
  } finally {
    await lock.release();
  }
}
