/**
 * One writer at a time: a dataset's lock names its holder, refuses a second writer while the holder
 * runs, is taken over when its process is gone, and the next writer removes what a killed one left.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BuildError } from '../../src/builder/build-error.ts';
import { LOCK_FILE, lockDataset, withDatasetLock } from '../../src/builder/dataset/dataset-lock.ts';
import { emptyCatalog } from '../../src/builder/dataset/dataset-writer.ts';
import { removeLeftovers } from '../../src/builder/dataset/leftovers.ts';
import type { Catalog } from '../../src/dataset/catalog.ts';

/** A pid above Linux's largest (2²² by default): no process has it. */
const DEAD_PID = 4_194_304 + 4321;
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cq-lock-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const holder = (pid: number, host = hostname()) =>
  JSON.stringify({ pid, host, command: 'layers merge /x', started: '2026-11-29T00:00:00.000Z' });

describe('the dataset lock', () => {
  it('is held while the command runs and gone after, even when it fails', async () => {
    await expect(
      withDatasetLock(dir, 'build --layer t', async () => {
        const h = JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8'));
        expect(h).toMatchObject({ pid: process.pid, host: hostname(), command: 'build --layer t' });
        throw new Error('the build failed');
      }),
    ).rejects.toThrow('the build failed');
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });

  it('refuses a second writer while a live process holds it, naming the holder', async () => {
    // The test runner's parent runs for as long as this test does.
    await writeFile(join(dir, LOCK_FILE), holder(process.ppid));
    const err = await lockDataset(dir, 'layers remove t').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BuildError);
    expect((err as BuildError).code).toBe('dataset_busy');
    expect((err as BuildError).message).toContain(
      `\`climate-query layers merge /x\` (process ${process.ppid} on ${hostname()}`,
    );
    expect((err as BuildError).message).toContain('nothing was changed');
    // The holder's lock is left as it was.
    expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')).pid).toBe(process.ppid);
  });

  it('refuses while another host holds it (its process cannot be asked)', async () => {
    await writeFile(join(dir, LOCK_FILE), holder(DEAD_PID, 'another-machine'));
    await expect(lockDataset(dir, 'index')).rejects.toMatchObject({ code: 'dataset_busy' });
  });

  it('takes over a lock whose process is gone', async () => {
    await writeFile(join(dir, LOCK_FILE), holder(DEAD_PID));
    const lock = await lockDataset(dir, 'index');
    expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')).pid).toBe(process.pid);
    await lock.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });

  it('two commands at once in one process contend for it: the second is refused, not let in', async () => {
    let release!: () => void;
    const first = withDatasetLock(dir, 'layers merge /a', () => new Promise<void>((r) => (release = r)));
    await new Promise((r) => setTimeout(r, 20));
    await expect(withDatasetLock(dir, 'layers merge /b', async () => undefined)).rejects.toMatchObject({
      code: 'dataset_busy',
      message: expect.stringContaining('`climate-query layers merge /a`'),
    });
    release();
    await first;
    await expect(withDatasetLock(dir, 'layers merge /b', async () => 'ran')).resolves.toBe('ran');
  });

  it('is taken again by a step of the command holding it (a remove that re-indexes)', async () => {
    await withDatasetLock(dir, 'stations remove', async () => {
      await withDatasetLock(dir, 'index', async () => undefined);
      // The outer hold is still there.
      expect(existsSync(join(dir, LOCK_FILE))).toBe(true);
    });
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });
});

describe('what a killed command left', () => {
  it('is removed by the next writer: temporary files of dead processes and unlisted build-named files', async () => {
    const catalog: Catalog = {
      ...emptyCatalog('t'),
      rasters: [
        {
          dataType: 'tmax',
          subDataType: '-',
          extent: 'tc',
          extentBbox: [18, -34, 19, -33],
          timeScale: 'daily',
          unit: '°C',
          description: 'x',
          crs: 'EPSG:4326',
          bbox: [18, -34, 19, -33],
          width: 1,
          height: 1,
          scale: 1,
          offset: 0,
          nodata: null,
          files: [{ path: 'rasters/tmax/2024-keep.zarr', periods: ['2024-01-01'] }],
        },
      ],
    };
    const made = [
      `catalog.json.${DEAD_PID}.1.tmp`,
      `import-report-gsod.json.${DEAD_PID}.tmp`,
      `${LOCK_FILE}.${DEAD_PID}.7`,
      `.stations-building-${DEAD_PID}/x`,
      `stations/.index-${DEAD_PID}.parquet`,
      `rasters/tmax/2024-keep.zarr/.zarray`,
      `rasters/tmax/2024-gone.zarr/.zarray`,
      `rasters/tmax/years-0a1b.tif`,
      `rasters/tmax/2024.tif.${DEAD_PID}.partial`,
      `rasters/tmax/notes.txt`,
      `catalog.json.${process.pid}.1.tmp`,
    ];
    for (const p of made) {
      await mkdir(join(dir, p, '..'), { recursive: true });
      await writeFile(join(dir, p), 'x');
    }
    const removed = await removeLeftovers(dir, catalog);
    expect(removed.sort()).toEqual(
      [
        `${LOCK_FILE}.${DEAD_PID}.7`,
        `.stations-building-${DEAD_PID}`,
        `catalog.json.${DEAD_PID}.1.tmp`,
        `import-report-gsod.json.${DEAD_PID}.tmp`,
        `rasters/tmax/2024-gone.zarr`,
        `rasters/tmax/2024.tif.${DEAD_PID}.partial`,
        `rasters/tmax/years-0a1b.tif`,
        `stations/.index-${DEAD_PID}.parquet`,
      ].sort(),
    );
    // What the catalog lists, what is not ours, and what a live process is writing stay.
    for (const p of [
      'rasters/tmax/2024-keep.zarr/.zarray',
      'rasters/tmax/notes.txt',
      `catalog.json.${process.pid}.1.tmp`,
    ])
      expect(existsSync(join(dir, p)), p).toBe(true);
  });
});
