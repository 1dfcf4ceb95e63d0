/**
 * `climate-query layers merge`: the raster layers of datasets built
 * elsewhere (years of one layer built on several machines) added to one
 * dataset. Planned whole first (layer-merge.ts, for every layer of every
 * source), so a conflict changes nothing; then the files are copied in
 * beside the target's (a store under its own build-named folder, a map file
 * by copy and rename), the catalog is written once, atomically, and the
 * files it no longer lists are deleted.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { RasterLayerEntry } from '../../dataset/catalog.ts';
import { BuildError } from '../build-error.ts';
import { placeInto, readCatalogOrEmpty, updateCatalog } from './dataset-writer.ts';
import { mergeLayer, type LayerMerge } from './layer-merge.ts';

/** What a merge did, per layer. */
export interface MergeReport {
  layers: Array<{ layer: string; from: string; added: string[]; replaced: string[] }>;
  /** Sources whose stations were not merged (the command merges raster layers). */
  stationsLeft: string[];
}

const key = (l: RasterLayerEntry) => `${l.dataType}\u0000${l.subDataType}\u0000${l.extent}`;
const label = (l: RasterLayerEntry) => `${l.dataType}${l.subDataType === '-' ? '' : `/${l.subDataType}`} (${l.extent})`;

/** Adds every raster layer of each `sources` folder to the dataset folder `target`. */
export async function mergeDatasets(target: string, sources: string[], name = 'dataset'): Promise<MergeReport> {
  const into = await readCatalogOrEmpty(target, name);
  const layers = new Map(into.rasters.map((l) => [key(l), l]));
  const copies: Array<{ from: string; path: string }> = [];
  const dropped: string[] = [];
  const report: MergeReport = { layers: [], stationsLeft: [] };
  // 1. Plan: every source, every layer, in order; a later source adds to what earlier ones gave.
  for (const source of sources) {
    const c = await readCatalogOrEmpty(source, name);
    if (c.rasters.length === 0 && !c.stations) {
      throw new BuildError('invalid_input', `${source} holds no dataset (no catalog.json with layers).`, {
        file: source,
      });
    }
    if (c.stations) report.stationsLeft.push(source);
    for (const layer of c.rasters) {
      const before = layers.get(key(layer));
      let plan: LayerMerge;
      try {
        plan = mergeLayer(before, layer, { where: target });
      } catch (err) {
        if (err instanceof BuildError) {
          throw new BuildError(err.code, `${source}: ${err.message} Nothing was merged.`, { file: source });
        }
        throw err;
      }
      layers.set(key(layer), plan.layer);
      for (const f of layer.files) copies.push({ from: join(source, f.path), path: f.path });
      dropped.push(...plan.dropped);
      report.layers.push({ layer: label(layer), from: source, added: plan.addedGroups, replaced: plan.replacedGroups });
    }
  }
  // 2. Copy each file in beside its final path, then rename it into place.
  for (const { from, path } of copies) await placeInto(from, join(target, path), { copy: true });
  // 3. One catalog, then what it no longer lists (a year replaced by a store of another build).
  await updateCatalog(target, into.name || name, (c) => {
    c.rasters = [...layers.values()].sort((a, b) =>
      (a.dataType + a.subDataType).localeCompare(b.dataType + b.subDataType),
    );
  });
  const listed = new Set([...layers.values()].flatMap((l) => l.files.map((f) => f.path)));
  for (const p of dropped) if (!listed.has(p)) await rm(join(target, p), { recursive: true, force: true });
  return report;
}
