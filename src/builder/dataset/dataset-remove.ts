/**
 * `climate-query layers remove` and `climate-query stations remove`: take one
 * raster layer, or some stations, out of a dataset folder and change nothing
 * else. The catalog stops naming what goes first, then its files are
 * deleted, so a reader never finds a catalog entry without its file.
 */
import { countOf } from '../../contract/quote.ts';
import { readdir, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { STATION_TIME_SCALES } from '../../contract/station-data-types.ts';
import { type Catalog, layoutOf, RASTER_LAYOUTS, type RasterLayerEntry } from '../../dataset/catalog.ts';
import { placeInto, readCatalogOrEmpty, updateCatalog } from './dataset-writer.ts';
import { withDatasetLock } from './dataset-lock.ts';
import { layerPaths, stationArchiveFolder } from '../../dataset/catalog-owners.ts';
import { BuildError } from '../build-error.ts';
import { lit, openBuildDuckDB } from '../build-duckdb.ts';
import { republishArchive } from './station-archive-publish.ts';
import { workFolder } from '../work-folder.ts';

/** Reads `dir/catalog.json` through the engine's checks (a damaged one is refused), or says there is no dataset there. */
async function readCatalog(dir: string): Promise<Catalog> {
  try {
    await stat(join(dir, 'catalog.json'));
  } catch {
    throw new BuildError(
      'invalid_input',
      `No dataset at ${dir} (no catalog.json); pass --data DIR, the folder holding catalog.json.`,
    );
  }
  return readCatalogOrEmpty(dir, 'dataset');
}

/** `path` (relative to the dataset, from its catalog or index) inside `dir`, or null when it would leave it. */
function inside(dir: string, path: string): string | null {
  const full = resolve(dir, path);
  const rel = relative(resolve(dir), full);
  return rel && !rel.startsWith('..') && !rel.startsWith(sep) && !/^[a-z]:/i.test(rel) ? full : null;
}

const layerName = (l: RasterLayerEntry) =>
  `${l.dataType}${l.subDataType === '-' ? '' : `/${l.subDataType}`} (extent ${l.extent})`;

/** What a removal did. */
export interface RemoveReport {
  /** What was removed, for people ("temp/min (extent sa)", "3 stations: A, B, C"). */
  removed: string;
  /** Dataset-relative paths of the files deleted. */
  files: string[];
}

/**
 * Removes the raster layer `dataType[/subDataType]` (and `extent`, when the dataset has the layer
 * on several extents) from the dataset in `dir`: its catalog entry, then its files and preview
 * where no other layer uses them. Throws naming the layers there when none or several match.
 */
export function removeRasterLayer(
  dir: string,
  dataType: string,
  subDataType = '-',
  extent?: string,
): Promise<RemoveReport> {
  const name = `${dataType}${subDataType === '-' ? '' : `/${subDataType}`}`;
  return withDatasetLock(dir, `layers remove ${name}`, () => removeLayerLocked(dir, dataType, subDataType, extent));
}

async function removeLayerLocked(
  dir: string,
  dataType: string,
  subDataType: string,
  extent: string | undefined,
): Promise<RemoveReport> {
  const catalog = await readCatalog(dir);
  const same = catalog.rasters.filter((l) => l.dataType === dataType && l.subDataType === subDataType);
  const matches = extent === undefined ? same : same.filter((l) => l.extent === extent);
  const asked = `${dataType}${subDataType === '-' ? '' : `/${subDataType}`}${extent === undefined ? '' : ` --extent ${extent}`}`;
  if (matches.length === 0) {
    const have = catalog.rasters.map(layerName);
    throw new BuildError(
      'invalid_input',
      `The dataset at ${dir} has no layer ${asked}; it has ${have.length ? have.join(', ') : 'no raster layers'}.`,
    );
  }
  if (matches.length > 1) {
    throw new BuildError(
      'invalid_input',
      `The dataset at ${dir} has ${asked} on ${matches.length} extents (${matches.map((l) => l.extent).join(', ')}); say which with --extent.`,
    );
  }
  const layer = matches[0]!;
  // Its own: the catalog was read through the owners check, so no other layer, the catalog or the
  // station archive shares any of these paths.
  // A store referenced in place (`layers add`) is not the dataset's: only its entry goes.
  const paths = RASTER_LAYOUTS[layoutOf(layer)].built ? layerPaths(layer) : [];
  await updateCatalog(dir, catalog.name, (c) => {
    c.rasters = c.rasters.filter(
      (l) => !(l.dataType === layer.dataType && l.subDataType === layer.subDataType && l.extent === layer.extent),
    );
  });
  const deleted: string[] = [];
  for (const p of paths) {
    // A path the catalog names outside the dataset is left alone: this command deletes only inside it.
    const full = inside(dir, p);
    if (!full) continue;
    // A zarr layer's file is a store folder.
    await rm(full, { recursive: true, force: true });
    deleted.push(p);
    await removeEmptyParents(dir, dirname(full));
  }
  return { removed: layerName(layer), files: deleted };
}

/** Removes `folder` and its parents up to (not including) `dir` while they are empty. */
async function removeEmptyParents(dir: string, folder: string): Promise<void> {
  const root = resolve(dir);
  for (let f = resolve(folder); f.startsWith(root + sep); f = dirname(f)) {
    if ((await readdir(f).catch(() => ['?'])).length) return;
    await rm(f, { recursive: true, force: true });
  }
}

/**
 * Removes stations from the dataset in `dir`: with `ids`, those stations (their files at every
 * scale and their rows in stations.parquet), then re-indexes what stays; with `all`, the whole
 * station archive. Unknown ids are refused, naming them; nothing changes then.
 */
export function removeStations(dir: string, ids: readonly string[], all = false): Promise<RemoveReport> {
  return withDatasetLock(dir, 'stations remove', () => removeStationsLocked(dir, ids, all));
}

async function removeStationsLocked(dir: string, ids: readonly string[], all: boolean): Promise<RemoveReport> {
  const catalog = await readCatalog(dir);
  if (!catalog.stations) throw new BuildError('invalid_input', `The dataset at ${dir} has no stations.`);
  const archive = join(dir, stationArchiveFolder(catalog.stations));
  if (all) {
    const count = catalog.stations.count;
    await updateCatalog(dir, catalog.name, (c) => {
      c.stations = null;
    });
    await rm(archive, { recursive: true, force: true });
    return { removed: `all ${countOf(count, 'station')}`, files: [`${stationArchiveFolder(catalog.stations)}/`] };
  }
  if (!ids.length)
    throw new BuildError('invalid_input', 'Name the stations to remove (their station_id), or pass --all.');
  const current = stationArchiveFolder(catalog.stations);
  const temp = await workFolder('remove');
  const duck = await openBuildDuckDB(temp);
  try {
    const { con } = duck;
    const idList = ids.map(lit).join(', ');
    const listed = (
      await con.runAndReadAll(
        `SELECT * FROM read_parquet(${lit(join(archive, 'index.parquet'))}, hive_partitioning = false) WHERE station_id IN (${idList})`,
      )
    ).getRowObjectsJS();
    const unknown = ids.filter((id) => !listed.some((r) => String(r.station_id) === id));
    if (unknown.length)
      throw new BuildError(
        'invalid_input',
        `The dataset at ${dir} has no station ${unknown.map((u) => `"${u}"`).join(', ')}; nothing was removed.`,
      );
    // A new archive without them (the others' files linked, not copied), switched to whole.
    const files: string[] = [];
    await republishArchive(dir, catalog.name, current, catalog.stations.utcOffset, async (staging) => {
      const stationsFile = join(staging, 'stations.parquet');
      const next = join(staging, '.stations-next.parquet');
      await con.run(
        `COPY (SELECT * FROM read_parquet(${lit(stationsFile)}, hive_partitioning = false) WHERE station_id NOT IN (${idList}) ORDER BY station_id) TO ${lit(next)} (FORMAT parquet, COMPRESSION zstd)`,
      );
      await placeInto(next, stationsFile);
      for (const r of listed) {
        for (const scale of STATION_TIME_SCALES) {
          const p = r[`${scale}_path`];
          if (typeof p !== 'string' || !p.startsWith(`${current}/`)) continue;
          // The station's folder at this scale (station_id=<id>/), with every file in it.
          const folder = dirname(p.slice(current.length + 1));
          const full = inside(staging, folder);
          if (!full) continue;
          await rm(full, { recursive: true, force: true });
          files.push(`${dirname(p)}/`);
        }
      }
    });
    return { removed: `${listed.length} station(s): ${listed.map((r) => String(r.station_id)).join(', ')}`, files };
  } finally {
    duck.close();
    await rm(temp, { recursive: true, force: true });
  }
}
