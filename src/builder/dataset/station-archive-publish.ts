/**
 * A station archive changed as a whole, never in place: every file of the current archive is
 * linked (no bytes copied) into a staging folder, changed there, indexed, renamed to a folder no
 * catalog names yet, catalog.json switched to it by one rename, and only then is the old folder
 * removed. Killed anywhere, the catalog names one whole archive (docs/reliability.md). Used by
 * `index` (re-indexing an archive the catalog lists) and `stations remove`; a station build writes
 * its archive afresh and publishes it the same way.
 */
import { type BuildProgress, quiet } from '../build-progress.ts';
import { existsSync } from 'node:fs';
import { copyFile, link, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { StationsSection } from '../../dataset/catalog.ts';
import { newBuildId } from '../build-id.ts';
import { indexStationArchive } from '../station-index-build.ts';
import { updateCatalog } from './dataset-writer.ts';

/** A folder for a new archive in dataset `dir`: `stations` when it is free, else one named by this build. */
export function newArchiveFolder(dir: string): string {
  if (!existsSync(join(dir, 'stations'))) return 'stations';
  return `stations-${newBuildId()
    .split('/')
    .pop()!
    .replace(/[^A-Za-z0-9]/g, '')}`;
}

/** The staging folder a command of this process writes a new archive in (a dotfile: never served). */
export function archiveStaging(dir: string): string {
  return join(dir, `.stations-building-${process.pid}`);
}

/** Links every file under `from` into `to` (made), skipping dotfiles; copies where a link cannot be made. */
async function linkTree(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const e of await readdir(from, { withFileTypes: true })) {
    if (e.name.startsWith('.')) continue;
    const [a, b] = [join(from, e.name), join(to, e.name)];
    if (e.isDirectory()) await linkTree(a, b);
    else if (e.isFile()) await link(a, b).catch(() => copyFile(a, b));
  }
}

/**
 * Publishes a new version of the archive `current` (a folder of dataset `dir`) that `change` makes
 * from a linked copy of it: indexed, switched to, the old folder removed. Returns the new section.
 */
export async function republishArchive(
  dir: string,
  name: string,
  current: string,
  utcOffset: string | undefined,
  change: (staging: string) => Promise<void>,
  progress: BuildProgress = quiet,
): Promise<StationsSection> {
  const staging = archiveStaging(dir);
  await rm(staging, { recursive: true, force: true });
  try {
    await linkTree(join(dir, current), staging);
    await change(staging);
    const folder = newArchiveFolder(dir);
    const indexed = await indexStationArchive(staging, folder, { progress });
    const section = utcOffset === undefined ? indexed : { ...indexed, utcOffset };
    await rename(staging, join(dir, folder));
    await updateCatalog(dir, name, (c) => {
      c.stations = section;
    });
    if (current !== folder) await rm(join(dir, current), { recursive: true, force: true });
    return section;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
