/**
 * Every write a build makes into a dataset folder goes through here, so a
 * reader, or a build killed part-way, sees the old state whole or the new
 * one whole (test/rasters/killed-build.int.test.ts):
 * - catalog.json is read through the engine's own checks (a damaged one is
 *   refused, never taken for empty) and written by temp file + rename; each
 *   build owns one section and calls {@link updateCatalog} with its part,
 *   and the file list is recomputed from what is on disk;
 * - files and folders are staged elsewhere and moved into place
 *   ({@link placeInto}); what a reader may be using is never replaced in
 *   place: builds write under new names and switch the catalog to them
 *   (docs/reliability.md, "An operator's dataset").
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { cp, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isForeignPath } from '../../dataset/foreign.ts';
import { CATALOG_VERSION, type Catalog, type CatalogFile, listedFile } from '../../dataset/catalog.ts';
import { compactPeriods } from '../../dataset/period-runs.ts';
import { checkDataset } from '../../dataset/catalog-check.ts';
import { BuildError } from '../build-error.ts';
import { mapFileClaims } from '../map-file-claims.ts';

/**
 * Reads the catalog in `dir` through the engine's own checks (fields, paths, owners), or an empty
 * one when there is none.
 * A catalog that cannot be read or fails the checks is refused, never taken for an empty one: the
 * build would otherwise write a catalog listing only its own part, and every other layer and the
 * stations would drop out of the dataset (their files still on disk).
 */
export async function readCatalogOrEmpty(dir: string, name: string): Promise<Catalog> {
  const path = join(dir, 'catalog.json');
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return emptyCatalog(name);
    throw damaged(dir, (err as Error).message, err);
  }
  try {
    return checkDataset(JSON.parse(text), path);
  } catch (err) {
    throw damaged(dir, err instanceof Error ? err.message : String(err), err);
  }
}

function damaged(dir: string, why: string, cause: unknown): BuildError {
  return new BuildError(
    'dataset_damaged',
    `catalog.json in ${dir} is damaged: ${why}. Restore it (from a backup, or the copy on the host), or rebuild the dataset into a new folder; nothing was changed.`,
    { file: join(dir, 'catalog.json'), cause },
  );
}

/** The catalog of a dataset folder that holds nothing yet. */
export function emptyCatalog(name: string): Catalog {
  return {
    format: 'climate-query-dataset',
    version: CATALOG_VERSION,
    name,
    created: '',
    attribution: [],
    files: [],
    stations: null,
    rasters: [],
  };
}

/**
 * Writes `text` to `path` through a temporary file in the same folder and a rename, so a reader (or
 * a build killed part-way) sees the old file whole or the new one whole, never a cut one.
 */
export async function writeFileAtomic(path: string, text: string | Uint8Array): Promise<void> {
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  try {
    await writeFile(tmp, text);
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/**
 * Moves a staged file or folder to `to`, replacing what is there: a rename,
 * or across file systems (a temporary folder on another disk) a copy beside
 * the target renamed into place, so `to` is never half-written. With
 * `copy`, `from` is left where it is (a dataset merged from another).
 */
export async function placeInto(from: string, to: string, { copy = false } = {}): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  const aside = `${to}.${process.pid}.partial`;
  await rm(aside, { recursive: true, force: true });
  if (!copy) {
    try {
      await rename(from, to);
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // A folder is not renamed over a folder: the new one goes beside it first.
      if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'EISDIR') await rename(from, aside);
      // Another disk: copied beside it.
      else if (code !== 'EXDEV') throw err;
    }
  }
  const staged = await stat(aside).then(
    () => true,
    () => false,
  );
  if (!staged) await cp(from, aside, { recursive: true });
  await rm(to, { recursive: true, force: true });
  await rename(aside, to);
}

/**
 * Applies `change` to the catalog in `dir`, then rewrites its file list from
 * the files the sections reference (sizes and SHA-256 read from disk) and saves it.
 */
export async function updateCatalog(dir: string, name: string, change: (c: Catalog) => void): Promise<Catalog> {
  const catalog = await readCatalogOrEmpty(dir, name);
  change(catalog);
  catalog.version = CATALOG_VERSION;
  catalog.created = new Date().toISOString();
  const referenced: Array<[string, string]> = [];
  if (catalog.stations) {
    // Only the index and coverage files: the station files are listed, with sizes, in the index,
    // so catalog.json does not grow with the network.
    referenced.push([catalog.stations.index, 'station-index']);
    referenced.push([catalog.stations.coverage, 'station-coverage']);
  }
  for (const layer of catalog.rasters) {
    // A store that is a folder is listed by the one object that stands for it (a zarr store's consolidated metadata).
    // A source at a URL is not the dataset's: nothing of it is listed (or served, or kept offline).
    for (const f of layer.files) if (!isForeignPath(f.path)) referenced.push(listedFile(layer, f.path));
    // The files a kerchunk reference reads from, where they are the dataset's: served and checked with it.
    for (const t of layer.kerchunk?.targets ?? [])
      if (!isForeignPath(t) && !referenced.some(([p]) => p === t)) referenced.push([t, 'raster-store']);
    if (layer.preview) referenced.push([layer.preview, 'raster-preview']);
  }
  const files: CatalogFile[] = [];
  for (const [path, role] of referenced) {
    let bytes: number;
    try {
      bytes = (await stat(join(dir, path))).size;
    } catch (err) {
      // A catalog naming a file that is gone (a layer's folder deleted by hand): say which and what to do, not ENOENT.
      const how = role.startsWith('raster')
        ? 'restore it, or take its layer out with `climate-query layers remove NAME[/SUB] --data DIR`'
        : 'restore it, or rebuild the stations';
      throw new BuildError(
        'unreadable_input',
        `catalog.json in ${dir} lists ${path} (${role}), which is missing there: ${how}. catalog.json was not changed.`,
        { file: path, cause: err },
      );
    }
    const claims = role === 'raster' ? await mapFileClaims(join(dir, path), path) : {};
    files.push({ path, role, bytes, sha256: await sha256OfFile(join(dir, path)), ...claims });
  }
  catalog.files = files;
  await writeFileAtomic(join(dir, 'catalog.json'), `${JSON.stringify(compactCatalog(catalog))}\n`);
  return catalog;
}

/** The catalog as written: each layer file's periods as a run where that is shorter (period-runs.ts). */
function compactCatalog(catalog: Catalog): unknown {
  return {
    ...catalog,
    rasters: catalog.rasters.map((l) => ({
      ...l,
      files: l.files.map((f) => ({ ...f, periods: compactPeriods(l.timeScale, f.periods) })),
    })),
  };
}

/** Hex SHA-256 of a file, streamed (station files can be large). */
function sha256OfFile(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}
