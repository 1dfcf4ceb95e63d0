/**
 * The data the benchmark runs on, built once and cached:
 *
 * - the demo dataset (`buildDemo`, the same build users run);
 * - the conventional baseline layout of the same raster values: one COG
 *   per date (GDAL's COG driver through gdal3.js, with the project's GDAL
 *   helpers), and the undated layer as one COG.
 *
 * Cache: `node_modules/.cache/climate-query-bench/` (or `$BENCH_CACHE`);
 * delete it, or pass `--rebuild`, to start from nothing.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Catalog, RasterLayerEntry } from '../src/dataset/catalog.ts';
import { checkCatalog } from '../src/dataset/catalog-check.ts';
import { buildDemo } from '../src/node/demo.ts';
import { readZarrCoordinate, readZarrInt16 } from '../test/helpers/zarr-read.ts';
import { closeDataset, gdalStep, mount, openDataset, unmount } from '../src/builder/raster-build-gdal.ts';

/** The repository root. */
export const REPO = fileURLToPath(new URL('..', import.meta.url));

/** Where built data is kept between runs. */
export function cacheDir(): string {
  return resolve(process.env.BENCH_CACHE ?? join(REPO, 'node_modules/.cache/climate-query-bench'));
}

/** Reads and checks a dataset's catalog.json. */
export async function readCatalog(dir: string): Promise<Catalog> {
  return checkCatalog(JSON.parse(await readFile(join(dir, 'catalog.json'), 'utf8')), join(dir, 'catalog.json'));
}

/**
 * The dataset `name` in the cache, built by `build(folder)` unless a readable one is there; returns its
 * folder and build time (0 when cached). A partly built one is never used: it is built aside and renamed.
 */
async function ensureDataset(
  name: string,
  rebuild: boolean,
  log: (s: string) => void,
  build: (folder: string) => Promise<void>,
): Promise<{ dir: string; builtInMs: number }> {
  const dir = join(cacheDir(), name);
  if (!rebuild && existsSync(join(dir, 'catalog.json'))) {
    try {
      await readCatalog(dir);
      return { dir, builtInMs: 0 };
    } catch {
      log(`cached ${name} dataset is stale: rebuilding`);
    }
  }
  const t = performance.now();
  const tmp = `${dir}.building`;
  await rm(tmp, { recursive: true, force: true });
  await build(tmp);
  await rm(dir, { recursive: true, force: true });
  await rename(tmp, dir);
  return { dir, builtInMs: performance.now() - t };
}

/** Builds the demo dataset into the cache unless a readable one is there; returns its folder and build time (0 when cached). */
export function ensureDemo(rebuild: boolean, log: (s: string) => void): Promise<{ dir: string; builtInMs: number }> {
  return ensureDataset('demo', rebuild, log, (folder) => buildDemo(folder, (line) => log(line)));
}

/**
 * The seasons dataset: one station (the demo generator's first, with the demo's weather model) and
 * twelve years of hours, 2013–2024, built by the same station build users run. The demo holds two
 * years, too few for the ten-season chill and heat bench.
 */
export function ensureSeasons(rebuild: boolean, log: (s: string) => void): Promise<{ dir: string; builtInMs: number }> {
  return ensureDataset('seasons', rebuild, log, async (folder) => {
    const { writeDemoStationInputs } = await import('../src/builder/demo-stations.ts');
    const { buildStations } = await import('../src/builder/stations-build.ts');
    const inputs = `${folder}.inputs`;
    await rm(inputs, { recursive: true, force: true });
    await mkdir(inputs, { recursive: true });
    try {
      const files = await writeDemoStationInputs(inputs, { stations: 1, start: '2013-01-01', end: '2024-12-31' });
      await buildStations({ stations: files.stations, hourly: files.hourly }, folder, 'seasons');
    } finally {
      await rm(inputs, { recursive: true, force: true });
    }
  });
}

/** The conventional files of one layer: one file per period, in period order. */
export interface BaselineLayer {
  /** Folder of the files, relative to the baseline root. */
  folder: string;
  /** File names relative to `folder`, one per period. */
  files: string[];
  /** The period of each file ('' for an undated layer). */
  periods: string[];
  /** Total bytes on disk. */
  bytes: number;
}

/**
 * A `zarr` store (docs/layers.md, "Layouts") as a map again: `<name>.raw` holds its dates band after
 * band on the grid and `<name>.vrt` describes them with the grid's georeferencing, from the store's
 * own `.zarray` and coordinate arrays. Read with test/helpers/zarr-read.ts, not with the engine's reader.
 */
async function unZarr(store: string, variable: string, work: string, name: string): Promise<void> {
  const { shape, data, fill } = readZarrInt16(store, variable);
  const [dates, h, w] = shape as [number, number, number];
  const lat = readZarrCoordinate(store, 'lat');
  const lon = readZarrCoordinate(store, 'lon');
  const resX = (lon[w - 1]! - lon[0]!) / (w - 1);
  const resY = (lat[0]! - lat[h - 1]!) / (h - 1);
  const [west, north] = [lon[0]! - resX / 2, lat[0]! + resY / 2];
  await writeFile(join(work, `${name}.raw`), new Uint8Array(data.buffer));
  const bands = Array.from(
    { length: dates },
    (_, d) =>
      `  <VRTRasterBand dataType="Int16" band="${d + 1}" subClass="VRTRawRasterBand"><NoDataValue>${fill}</NoDataValue>` +
      `<SourceFilename relativeToVRT="1">${name}.raw</SourceFilename><ImageOffset>${d * w * h * 2}</ImageOffset>` +
      `<PixelOffset>2</PixelOffset><LineOffset>${w * 2}</LineOffset><ByteOrder>LSB</ByteOrder></VRTRasterBand>`,
  );
  await writeFile(
    join(work, `${name}.vrt`),
    `<VRTDataset rasterXSize="${w}" rasterYSize="${h}"><SRS>EPSG:4326</SRS>` +
      `<GeoTransform>${west}, ${resX}, 0, ${north}, 0, ${-resY}</GeoTransform>\n${bands.join('\n')}\n</VRTDataset>\n`,
  );
}

/** GDAL creation options of the baseline COGs: GDAL's COG defaults (512 px tiles, overviews only when larger), with the engine's codec. */
export const BASELINE_COG_OPTIONS = ['-of', 'COG', '-co', 'COMPRESS=DEFLATE', '-co', 'PREDICTOR=YES'];

/**
 * Writes `layer` of the demo dataset the conventional way under
 * `<cache>/baseline/<folder>/`: one single-band COG per band (period),
 * named by its period, or `layer.tif` for an undated layer. Cached by the
 * source files' sizes and times.
 */
export async function ensureBaselineLayer(
  demoDir: string,
  layer: RasterLayerEntry,
  log: (s: string) => void,
): Promise<BaselineLayer> {
  const folder = `${layer.dataType}-${layer.subDataType}`;
  const out = join(cacheDir(), 'baseline', folder);
  const sources = layer.files.map((f) => join(demoDir, f.path));
  // A store's .zmetadata carries its build's id: a rebuilt store is told apart by it.
  const stamped = sources.map((s) => (layer.layout === 'zarr' ? join(s, '.zmetadata') : s));
  const stamp = JSON.stringify({
    options: BASELINE_COG_OPTIONS,
    sources: await Promise.all(stamped.map(async (s) => [s, (await stat(s)).size, (await stat(s)).mtimeMs])),
  });
  const periods = layer.files.flatMap((f) => f.periods);
  const files = periods.map((p) => `${p || 'layer'}.tif`);
  const stampFile = join(out, 'stamp.json');
  if (existsSync(stampFile) && (await readFile(stampFile, 'utf8')) === stamp) {
    return { folder, files, periods, bytes: await folderBytes(out) };
  }
  const t = performance.now();
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  const work = join(cacheDir(), 'baseline', `${folder}.work`);
  await rm(work, { recursive: true, force: true });
  await mkdir(work, { recursive: true });
  const outMount = await mount(out);
  const workMount = await mount(work);
  try {
    let n = 0;
    for (const [fi, source] of sources.entries()) {
      const srcMount = await mount(join(source, '..'));
      try {
        if (layer.layout === 'zarr') {
          // A store is read chunk by chunk into the grid, band after band.
          await unZarr(source, layer.zarr!.variable, work, `flat${fi}`);
        } else {
          // Reading one band of a pixel-interleaved file decodes every band; go through a
          // band-interleaved uncompressed copy so each single-band write reads only its band.
          const { ds: stack } = await openDataset(`${srcMount.virtual}/${source.split('/').pop()}`);
          const flat = `${workMount.outputName}/flat${fi}`;
          try {
            await gdalStep(`Flattening ${source}`, (g) =>
              g.gdal_translate(stack, ['-of', 'GTiff', '-co', 'INTERLEAVE=BAND'], flat),
            );
          } finally {
            await closeDataset(stack);
          }
        }
        const { ds } = await openDataset(`${workMount.virtual}/flat${fi}.${layer.layout === 'zarr' ? 'vrt' : 'tif'}`);
        try {
          for (let b = 0; b < layer.files[fi]!.periods.length; b++) {
            const name = files[n++]!.replace(/\.tif$/, '');
            await gdalStep(`Writing ${name}.tif`, (g) =>
              g.gdal_translate(ds, ['-b', String(b + 1), ...BASELINE_COG_OPTIONS], `${outMount.outputName}/${name}`),
            );
          }
        } finally {
          await closeDataset(ds);
        }
      } finally {
        await unmount(srcMount);
      }
    }
  } finally {
    await unmount(outMount);
    await unmount(workMount);
    await rm(work, { recursive: true, force: true });
  }
  await writeFile(stampFile, stamp);
  const bytes = await folderBytes(out);
  log(
    `baseline ${folder}: ${files.length} COG file(s), ${(bytes / 1e6).toFixed(1)} MB, written in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  return { folder, files, periods, bytes };
}

async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir)) if (name.endsWith('.tif')) total += (await stat(join(dir, name))).size;
  return total;
}

/** The catalog entry of a layer; throws when the dataset lacks it. */
export function layerOf(catalog: Catalog, dataType: string, subDataType: string): RasterLayerEntry {
  const layer = catalog.rasters.find((l) => l.dataType === dataType && l.subDataType === subDataType);
  if (!layer) throw new Error(`The demo dataset has no ${dataType}/${subDataType} layer.`);
  return layer;
}

/**
 * The demo's station rows as one DuckDB database file (tables `hourly`, `daily`, `monthly`: every
 * station's rows, sorted by station and time), what a DuckDB-WASM user attaches read-only over HTTP
 * Range where its Parquet extension cannot be downloaded (it is fetched from DuckDB's own site, which
 * no machine here reaches). Written by native DuckDB with storage version v1.0.0, which DuckDB-WASM
 * 1.32 (DuckDB 1.4) reads. Cached by the demo catalog's creation time.
 */
export async function ensureStationDuckDb(demoDir: string, log: (s: string) => void): Promise<string> {
  const dir = join(cacheDir(), 'duckdb');
  const file = join(dir, 'stations.duckdb');
  const stampFile = join(dir, 'stamp.json');
  const stamp = JSON.stringify({ created: (await readCatalog(demoDir)).created });
  if (existsSync(file) && existsSync(stampFile) && (await readFile(stampFile, 'utf8')) === stamp) return file;
  const t = performance.now();
  await mkdir(dir, { recursive: true });
  const tmp = `${file}.building`;
  await rm(tmp, { force: true });
  await rm(`${tmp}.wal`, { force: true });
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  try {
    await con.run('SET autoload_known_extensions = false');
    await con.run(`ATTACH '${tmp.replace(/'/g, "''")}' AS s (STORAGE_VERSION 'v1.0.0')`);
    for (const scale of ['hourly', 'daily', 'monthly']) {
      const glob = join(demoDir, 'stations', scale, '*', '*.parquet').replace(/'/g, "''");
      await con.run(
        `CREATE TABLE s.${scale} AS SELECT * FROM read_parquet('${glob}', union_by_name = true) ORDER BY station_id, time`,
      );
    }
    await con.run('DETACH s');
  } finally {
    con.closeSync();
    db.closeSync();
  }
  await rename(tmp, file);
  await writeFile(stampFile, stamp);
  log(
    `station rows as a DuckDB file: ${((await stat(file)).size / 1e6).toFixed(1)} MB in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  return file;
}
