/**
 * Who owns each path a catalog lists. A catalog is data, maybe merged from
 * another machine's: a layer naming another layer's file answers that
 * layer's values under its own name, and one whose preview is `catalog.json`
 * would have `layers remove` delete the dataset. So every raster path (a
 * file, a store, a preview) belongs to exactly one layer, and none is or lies
 * inside or around catalog.json or the station archive. The engine and every
 * build read a catalog through this check (catalog-check.ts, checkDataset).
 */
import { ClimateQueryError } from '../contract/errors.ts';
import { truncate } from '../contract/quote.ts';
import type { Catalog, RasterLayerEntry, StationsSection } from './catalog.ts';
import { isForeignPath } from './foreign.ts';

/** `dataType[/subDataType] (extent)`, for messages. */
export function layerLabel(l: Pick<RasterLayerEntry, 'dataType' | 'subDataType' | 'extent'>): string {
  return `${l.dataType}${l.subDataType === '-' ? '' : `/${l.subDataType}`} (${l.extent})`;
}

/** Every path `layer` owns: its files (a store is a folder) and its preview. */
export function layerPaths(layer: RasterLayerEntry): string[] {
  return [...layer.files.map((f) => f.path), ...(layer.preview ? [layer.preview] : [])];
}

/**
 * The paths the owner check gives `layer`: a published store's (or a kerchunk reference's) layer
 * owns its array (several layers may read one store's variables), and a source at a URL is
 * nobody's to delete.
 */
function ownedPaths(layer: RasterLayerEntry): string[] {
  return layerPaths(layer)
    .filter((p) => !isForeignPath(p))
    .map((p) => (layer.storeArray && p !== layer.preview ? `${p}/${layer.storeArray.variable}` : p));
}

/** Whether `a` and `b` are one path, or one lies inside the other (a store folder and a file in it). */
export function pathsOverlap(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

/** The folder of a station archive: where its index is (`stations`, or `stations-<build>`), holding every station file. */
export function stationArchiveFolder(stations: Pick<StationsSection, 'index'>): string {
  const i = stations.index.lastIndexOf('/');
  return i > 0 ? stations.index.slice(0, i) : stations.index;
}

/** The paths a dataset keeps outside its layers: catalog.json and the station archive's folder. */
export function reservedPaths(catalog: Pick<Catalog, 'stations'>): Array<{ path: string; what: string }> {
  const out = [{ path: 'catalog.json', what: 'the catalog' }];
  const s = catalog.stations;
  if (s) {
    // The archive's folder holds its index, coverage and every station file (docs/data.md).
    out.push({ path: stationArchiveFolder(s), what: 'the station archive' });
    out.push({ path: s.coverage, what: 'the station coverage' });
  }
  return out;
}

/**
 * Throws `dataset_unavailable` naming the first path of `catalog` that two layers claim, that one
 * layer lists twice, or that is or holds the catalog or the station archive. Linear in the paths'
 * segments (a hostile catalog may list hundreds of thousands).
 */
export function checkFileOwners(catalog: Pick<Catalog, 'stations' | 'rasters'>, where: string): void {
  const bad = (path: string, why: string) =>
    new ClimateQueryError(
      'dataset_unavailable',
      `${where} lists ${JSON.stringify(truncate(path))} ${why}; a file belongs to one layer only. Rebuild the layer, or take it out with \`climate-query layers remove\`.`,
    );
  const reserved = reservedPaths(catalog);
  /** Every path a layer claimed, and every folder above one, with the layer. */
  const claimed = new Map<string, { path: string; owner: string }>();
  const above = new Map<string, { path: string; owner: string }>();
  const folders = (path: string) => {
    const out: string[] = [];
    for (let i = path.indexOf('/'); i > 0; i = path.indexOf('/', i + 1)) out.push(path.slice(0, i));
    return out;
  };
  for (const layer of catalog.rasters) {
    const owner = layerLabel(layer);
    for (const path of ownedPaths(layer)) {
      const r = reserved.find((x) => pathsOverlap(path, x.path));
      if (r) throw bad(path, `for ${owner}, where ${r.what} is (${r.path})`);
      // The same path, a path inside this one (a store), or a store this path lies in.
      const other =
        claimed.get(path) ??
        above.get(path) ??
        folders(path)
          .map((f) => claimed.get(f))
          .find(Boolean);
      if (other)
        throw bad(
          path,
          other.owner === owner
            ? `twice for ${owner}${other.path === path ? '' : ` (and ${JSON.stringify(truncate(other.path))})`}`
            : `for ${owner}, and ${JSON.stringify(truncate(other.path))} for ${other.owner}`,
        );
      claimed.set(path, { path, owner });
      for (const f of folders(path)) if (!above.has(f)) above.set(f, { path, owner });
    }
  }
}
