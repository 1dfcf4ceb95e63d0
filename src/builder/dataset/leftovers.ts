/**
 * What a killed command leaves in a dataset folder, removed by the next one
 * that takes the lock (dataset-lock.ts): temporary files named by a process
 * that is gone (`catalog.json.<pid>.<time>.tmp`, `<file>.<pid>.partial`, a
 * lock's draft, `.stations-building-<pid>`, `.stations-old-<pid>`), and the
 * build-named files and stores in a layer's folder that the catalog does not
 * list (written before a kill, or left after the catalog moved on).
 * Nothing the catalog lists, and nothing outside those names, is touched.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Catalog } from '../../dataset/catalog.ts';
import { layerPaths, stationArchiveFolder } from '../../dataset/catalog-owners.ts';

/** A name carrying the pid of the process that wrote it, as this project's writers name temporary files. */
const PID_NAMED = [
  /^catalog\.json\.(\d+)\.\d+\.tmp$/,
  /\.(\d+)\.partial$/,
  /^\.climate-query\.lock\.(\d+)\.\d+$/,
  /^\.climate-query\.lock\.stale\.(\d+)$/,
  /^\.stations-(?:building|old)-(\d+)$/,
  /^\.(?:index|coverage)-(\d+)\.(?:parquet|jsonl)$/,
  /^\.stations-next\.parquet$/,
  /^import-report-[a-z-]+\.json\.(\d+)\.tmp$/,
];

/** A file or store a raster build names: its group, then (from this version on) the build's id. */
export const BUILD_NAMED =
  /^(?:(?:\d{4}|years|months|layer)(?:-[A-Za-z0-9]+)?\.(?:tif|zarr)|preview-[A-Za-z0-9]+(?:\.\w+)?)$/;

function deadWriter(name: string): boolean {
  for (const re of PID_NAMED) {
    const m = re.exec(name);
    if (!m) continue;
    if (m[1] === undefined) return true;
    const pid = Number(m[1]);
    if (pid === process.pid) return false;
    try {
      process.kill(pid, 0);
      return false;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code !== 'EPERM';
    }
  }
  return false;
}

async function entries(dir: string): Promise<import('node:fs').Dirent[]> {
  return readdir(dir, { withFileTypes: true }).catch(() => []);
}

/**
 * Removes the leftovers of killed commands from dataset folder `dir`, whose catalog is `catalog`
 * (null: none yet). Returns the dataset-relative paths removed. Call it holding the lock.
 */
export async function removeLeftovers(dir: string, catalog: Catalog | null): Promise<string[]> {
  const removed: string[] = [];
  const drop = async (rel: string) => {
    await rm(join(dir, rel), { recursive: true, force: true });
    removed.push(rel);
  };
  // A station archive a killed build wrote under its build's name, which the catalog never named; or
  // the archive a build had replaced, when it was killed after the catalog switch, before removing it.
  const archive = catalog?.stations ? stationArchiveFolder(catalog.stations) : null;
  const superseded = (name: string) =>
    (/^stations-[A-Za-z0-9]+$/.test(name) && name !== archive) ||
    (name === 'stations' && archive?.startsWith('stations-'));
  for (const e of await entries(dir)) if (deadWriter(e.name) || superseded(e.name)) await drop(e.name);
  const folder = archive ?? 'stations';
  for (const e of await entries(join(dir, folder))) if (deadWriter(e.name)) await drop(`${folder}/${e.name}`);
  const listed = new Set((catalog?.rasters ?? []).flatMap(layerPaths));
  for (const layerDir of await entries(join(dir, 'rasters'))) {
    if (!layerDir.isDirectory()) continue;
    for (const e of await entries(join(dir, 'rasters', layerDir.name))) {
      const rel = `rasters/${layerDir.name}/${e.name}`;
      if (deadWriter(e.name) || (BUILD_NAMED.test(e.name) && !listed.has(rel))) await drop(rel);
    }
  }
  return removed;
}
