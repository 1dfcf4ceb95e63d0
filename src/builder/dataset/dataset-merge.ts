/**
 * `climate-query layers merge`: the raster layers of datasets built
 * elsewhere (years of one layer built on several machines) added to one
 * dataset. A source is input, maybe someone else's: its catalog passes the
 * engine's checks (fields, confined paths, one owner per file), every file it
 * lists must be there and hold no link, and the dataset it would make passes
 * them too, all before the first byte is copied. Then, holding the target's
 * lock, each file is copied in under a new name of the target's choosing (in
 * its layer's own folder, named by the merge), the catalog switches to them
 * in one rename, and the files it no longer lists are deleted. Killed at any
 * moment, the target answers as before; what a kill left is removed by the
 * next command (leftovers.ts).
 */
import { isForeignPath } from '../../dataset/foreign.ts';
import { lstat, readdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type Catalog, layoutOf, type RasterLayerEntry } from '../../dataset/catalog.ts';
import { checkDataset } from '../../dataset/catalog-check.ts';
import { layerLabel } from '../../dataset/catalog-owners.ts';
import { BuildError } from '../build-error.ts';
import { newBuildId } from '../build-id.ts';
import { rasterLayerDir } from '../raster-plan.ts';
import { withDatasetLock } from './dataset-lock.ts';
import { placeInto, readCatalogOrEmpty, updateCatalog } from './dataset-writer.ts';
import { builtFileName, fileGroup, mergeLayer, type LayerMerge } from './layer-merge.ts';

/** What a merge did, per layer. */
export interface MergeReport {
  layers: Array<{ layer: string; from: string; added: string[]; replaced: string[] }>;
  /** Sources whose stations were not merged (the command merges raster layers). */
  stationsLeft: string[];
}

const key = (l: RasterLayerEntry) => `${l.dataType}\u0000${l.subDataType}\u0000${l.extent}`;

/** Adds every raster layer of each `sources` folder to the dataset folder `target`. */
export function mergeDatasets(target: string, sources: string[], name = 'dataset'): Promise<MergeReport> {
  return withDatasetLock(target, `layers merge ${sources.join(' ')}`, () => mergeLocked(target, sources, name));
}

async function mergeLocked(target: string, sources: string[], name: string): Promise<MergeReport> {
  const into = await readCatalogOrEmpty(target, name);
  const layers = new Map(into.rasters.map((l) => [key(l), l]));
  const copies: Array<{ from: string; to: string }> = [];
  const dropped: string[] = [];
  const report: MergeReport = { layers: [], stationsLeft: [] };
  // 1. Plan: every source, every layer, in order; a later source adds to what earlier ones gave.
  for (const source of sources) {
    if (resolve(source) === resolve(target)) {
      throw new BuildError('invalid_input', `${source} is the dataset being merged into; nothing was merged.`, {
        file: source,
      });
    }
    const c = await sourceCatalog(source, name);
    if (c.stations) report.stationsLeft.push(source);
    for (const layer of c.rasters) {
      // A reference reads its files beside it by their names: renamed into the target, it would read none.
      if ((layer.kerchunk?.targets ?? []).some((t) => !isForeignPath(t)))
        throw new BuildError(
          'invalid_input',
          `${source}: ${layerLabel(layer)} reads its dataset's files through a kerchunk reference; add it to ${target} with \`climate-query layers add\` where the files are. Nothing was merged.`,
          { file: join(source, layer.files[0]!.path) },
        );
      // The target names the files: in the layer's own folder, by group and an id of this merge's, so
      // no copy lands on a file the target has (another layer's, the catalog, the stations).
      const id = newBuildId();
      const folder = rasterLayerDir(layer.dataType, layer.subDataType);
      const renamed = new Map<string, string>();
      for (const f of layer.files) {
        // A source at a URL stays where it is published: the merged layer references it as the source's did.
        if (isForeignPath(f.path)) {
          renamed.set(f.path, f.path);
          continue;
        }
        const to = `${folder}/${builtFileName(fileGroup(f.path), id, layoutOf(layer))}`;
        if ([...renamed.values()].includes(to)) {
          throw new BuildError(
            'invalid_input',
            `${source}: ${layerLabel(layer)} lists two files of ${fileGroup(f.path)}; nothing was merged.`,
            { file: join(source, f.path) },
          );
        }
        renamed.set(f.path, to);
      }
      if (layer.preview)
        renamed.set(layer.preview, `${folder}/preview-${id.split('/').pop()}${extension(layer.preview)}`);
      for (const from of renamed.keys()) if (!isForeignPath(from)) await checkCopyable(source, from);
      const incoming: RasterLayerEntry = {
        ...layer,
        files: layer.files.map((f) => ({ ...f, path: renamed.get(f.path)! })),
        ...(layer.preview ? { preview: renamed.get(layer.preview)! } : {}),
      };
      let plan: LayerMerge;
      try {
        plan = mergeLayer(layers.get(key(layer)), incoming, { where: target });
      } catch (err) {
        if (err instanceof BuildError) {
          throw new BuildError(err.code, `${source}: ${err.message} Nothing was merged.`, { file: source });
        }
        throw err;
      }
      layers.set(key(layer), plan.layer);
      for (const [from, to] of renamed) if (!isForeignPath(from)) copies.push({ from: join(source, from), to });
      dropped.push(...plan.dropped);
      report.layers.push({
        layer: layerLabel(layer),
        from: source,
        added: plan.addedGroups,
        replaced: plan.replacedGroups,
      });
    }
  }
  // The dataset the merge would make, checked as the engine will read it, before anything is copied.
  const rasters = [...layers.values()].sort((a, b) =>
    (a.dataType + a.subDataType).localeCompare(b.dataType + b.subDataType),
  );
  try {
    checkDataset({ ...into, rasters }, join(target, 'catalog.json'));
  } catch (err) {
    throw new BuildError('invalid_input', `${(err as Error).message} Nothing was merged.`, { cause: err });
  }
  // 2. Copy each file in under its new name (staged beside it, renamed into place).
  for (const { from, to } of copies) await placeInto(from, join(target, to), { copy: true });
  // 3. One catalog, then what it no longer lists (a year replaced by a newer copy).
  await updateCatalog(target, into.name || name, (c) => {
    c.rasters = rasters;
  });
  const listed = new Set(rasters.flatMap((l) => [...l.files.map((f) => f.path), ...(l.preview ? [l.preview] : [])]));
  for (const p of dropped)
    if (!listed.has(p) && !isForeignPath(p)) await rm(join(target, p), { recursive: true, force: true });
  return report;
}

/** A source's catalog, checked as the engine checks one; refused as the merge's input, naming it. */
async function sourceCatalog(source: string, name: string): Promise<Catalog> {
  let c: Catalog;
  try {
    c = await readCatalogOrEmpty(source, name);
  } catch (err) {
    const why = err instanceof BuildError && err.cause instanceof Error ? err.cause.message : (err as Error).message;
    throw new BuildError('invalid_input', `${source} cannot be merged: ${why}. Nothing was merged.`, {
      file: join(source, 'catalog.json'),
      cause: err,
    });
  }
  if (c.rasters.length === 0 && !c.stations) {
    throw new BuildError('invalid_input', `${source} holds no dataset (no catalog.json with layers).`, {
      file: source,
    });
  }
  return c;
}

function extension(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot) : '';
}

/**
 * Refuses a listed file of `source` that is missing, or that is or holds a link (a link copied in
 * would serve whatever it points at): merges copy files and folders, never links.
 */
async function checkCopyable(source: string, path: string): Promise<void> {
  const full = join(source, path);
  const refuse = (why: string, at = full) =>
    new BuildError('unreadable_input', `${source} lists ${path}, which ${why}; nothing was merged.`, { file: at });
  let info: Awaited<ReturnType<typeof lstat>>;
  try {
    info = await lstat(full);
  } catch {
    throw refuse('is missing there');
  }
  if (info.isSymbolicLink()) throw refuse('is a link (a merge copies files, never links)');
  if (info.isFile()) return;
  if (!info.isDirectory()) throw refuse('is not a file or a store folder');
  const entries = await readdir(full, { recursive: true, withFileTypes: true });
  for (const e of entries) {
    if (e.isSymbolicLink())
      throw refuse(`holds a link (${join(e.parentPath, e.name)}; a merge copies files, never links)`);
    if (!e.isFile() && !e.isDirectory()) throw refuse(`holds ${join(e.parentPath, e.name)}, which is not a file`);
  }
}
