/**
 * Work folders in the system's temp folder are named by their process, and a new one removes those
 * a killed process left: only when that process is gone and the folder has not changed for an hour;
 * a live process's folder, a fresh one, and folders named otherwise are left alone.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ABANDONED_AFTER_MS, removeAbandoned, workFolder } from '../../src/builder/work-folder.ts';

const made: string[] = [];
afterAll(() => Promise.all(made.map((p) => rm(p, { recursive: true, force: true }))));

async function folder(name: string, ageMs: number): Promise<string> {
  const path = join(tmpdir(), name);
  await mkdir(path, { recursive: true });
  await writeFile(join(path, 'spill.tmp'), 'x');
  const t = (Date.now() - ageMs) / 1000;
  await utimes(path, t, t);
  made.push(path);
  return path;
}

describe('work folders', () => {
  it('are named by kind and pid; a new one removes what a gone process left an hour ago, nothing else', async () => {
    // A pid that was a process and is gone now.
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
    const old = ABANDONED_AFTER_MS + 60_000;
    const abandoned = await folder(`climate-query-build-${gone}-aB3dE9`, old);
    const fresh = await folder(`climate-query-raster-${gone}-Zz9yX8`, 60_000);
    const mine = await folder(`climate-query-import-${process.pid}-Qq1wE2`, old);
    const unnamed = await folder('climate-query-build-Kk7Jj6', old);
    const other = await folder(`my-own-${gone}-Pp0Oo9`, old);

    const path = await workFolder('demo-rasters');
    made.push(path);
    expect(basename(path)).toMatch(new RegExp(`^climate-query-demo-rasters-${process.pid}-[A-Za-z0-9]{6}$`));
    expect(existsSync(abandoned)).toBe(false);
    for (const kept of [fresh, mine, unnamed, other, path]) expect(existsSync(kept), kept).toBe(true);
    // Again: nothing more to remove.
    expect(await removeAbandoned()).not.toContain(basename(fresh));
  });
});
