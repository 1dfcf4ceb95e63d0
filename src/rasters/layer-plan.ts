/**
 * From a validated raster query to "which bands of which files": finds the
 * catalog layer and maps every requested period to a (file, band) pair, or
 * says which dates the layer does hold.
 */
import type { PolygonCoords } from '../contract/wkt.ts';
import { CALENDARS } from '../contract/calendars.ts';
import { ClimateQueryError } from '../contract/errors.ts';
import { TIME_SCALES } from '../contract/time-scales.ts';
import type { RasterQuery } from '../contract/types.ts';
import type { Catalog, RasterLayerEntry } from '../dataset/catalog.ts';
import type { GridSpec } from './coverage.ts';

/** The bands one file contributes to a query. */
export interface FileBands {
  /** Index into `layer.files`. */
  file: number;
  /** 0-based band numbers to decode, in the order of `keyIndexes`. */
  bands: number[];
  /** For each band above, its position in the response's period list. */
  keyIndexes: number[];
}

/** What to read for one query. */
export interface ReadPlan {
  layer: RasterLayerEntry;
  /** Period keys of the response in order; `['']` for an undated layer. */
  keys: string[];
  files: FileBands[];
}

/** `dataType[/subDataType]`, as a query names a layer, for messages. */
export function layerTypeLabel(layer: Pick<RasterLayerEntry, 'dataType' | 'subDataType'>): string {
  return `${layer.dataType}${layer.subDataType === '-' ? '' : `/${layer.subDataType}`}`;
}

/** Finds the layer of `q` in `catalog`, or throws `unknown_data_type`. */
export function findLayer(
  catalog: Catalog,
  q: Pick<RasterQuery, 'dataType' | 'subDataType' | 'extent'>,
): RasterLayerEntry {
  const sameType = catalog.rasters.filter((l) => l.dataType === q.dataType);
  const layer = sameType.find((l) => l.subDataType === q.subDataType && l.extent === q.extent);
  if (layer) return layer;
  if (sameType.length === 0) {
    throw new ClimateQueryError('unknown_data_type', `This dataset has no ${q.dataType} layers.`, {
      field: 'dataType',
    });
  }
  const have = sameType.map((l) => `"${l.subDataType}" (${l.extent})`).join(', ');
  throw new ClimateQueryError(
    'unknown_data_type',
    `This dataset has no ${q.dataType} layer "${q.subDataType}" for extent "${q.extent}"; it has ${have}.`,
    {
      field: 'options.subDataType',
    },
  );
}

const bandIndexCache = new WeakMap<RasterLayerEntry, Map<string, [number, number]>>();

function bandIndex(layer: RasterLayerEntry): Map<string, [number, number]> {
  let index = bandIndexCache.get(layer);
  if (!index) {
    index = new Map();
    layer.files.forEach((f, fi) => f.periods.forEach((p, bi) => index!.set(p, [fi, bi])));
    bandIndexCache.set(layer, index);
  }
  return index;
}

/** The first and last period a layer holds, for messages. */
export function layerHeldRange(layer: RasterLayerEntry): [string, string] | null {
  const all = layer.files
    .flatMap((f) => f.periods)
    .filter((p) => p !== '')
    .sort();
  return all.length ? [all[0]!, all[all.length - 1]!] : null;
}

/**
 * Maps the query's periods to bands. Throws `invalid_date_range` naming the
 * dates the layer holds when any requested period is not in its files.
 */
export function planRead(layer: RasterLayerEntry, q: Pick<RasterQuery, 'range'>): ReadPlan {
  if (layer.timeScale === null || q.range === null) {
    const file = layer.files[0];
    if (!file)
      throw new ClimateQueryError(
        'dataset_unavailable',
        `catalog.json lists no file for ${layer.dataType} "${layer.subDataType}".`,
      );
    return { layer, keys: [''], files: [{ file: 0, bands: [0], keyIndexes: [0] }] };
  }
  const index = bandIndex(layer);
  const byFile = new Map<number, FileBands>();
  const missing: string[] = [];
  q.range.keys.forEach((key, k) => {
    const at = index.get(key);
    if (!at) {
      missing.push(key);
      return;
    }
    let fb = byFile.get(at[0]);
    if (!fb) byFile.set(at[0], (fb = { file: at[0], bands: [], keyIndexes: [] }));
    fb.bands.push(at[1]);
    fb.keyIndexes.push(k);
  });
  if (missing.length > 0) {
    const held = layerHeldRange(layer);
    const name = layer.subDataType === '-' ? layer.dataType : `${layer.dataType} "${layer.subDataType}"`;
    const gaps = held && index.size < countBetween(layer, held) ? ' (with gaps)' : '';
    const what =
      missing.length === 1
        ? `${missing[0]} is`
        : `${missing.length} periods (${missing[0]} to ${missing[missing.length - 1]}) are`;
    throw new ClimateQueryError(
      'invalid_date_range',
      held
        ? `${what} not in the ${name} layer; it holds dates ${held[0]} to ${held[1]}${gaps}.`
        : `The ${name} layer holds no dates.`,
      {
        field: 'startDate',
        params: held
          ? {
              reason: 'not in layer',
              missingFirst: missing[0]!,
              missingLast: missing[missing.length - 1]!,
              missingCount: missing.length,
              first: held[0],
              gaps: gaps !== '',
              last: held[1],
            }
          : { reason: 'layer has no dates' },
      },
    );
  }
  return { layer, keys: q.range.keys, files: [...byFile.values()] };
}

/** How many periods the layer would hold from first to last without gaps (only to tell "with gaps"). */
function countBetween(layer: RasterLayerEntry, [first, last]: [string, string]): number {
  if (layer.timeScale === null) return 0;
  const scale = layer.timeScale;
  const calendar = CALENDARS[TIME_SCALES[scale].calendar];
  const [a, b] = [calendar.ordinalOfKey(first), calendar.ordinalOfKey(last)];
  if (!Number.isFinite(a) || !Number.isFinite(b)) return 0;
  // Months of any year wrap (11 → 02): counted forward over the new year.
  return calendar.wraps ? ((b - a + 12) % 12) + 1 : b - a + 1;
}

/** The grid of a layer as {@link GridSpec}, from the exact resolution when the catalog has it. */
export function gridOf(layer: RasterLayerEntry): GridSpec {
  const [west, south, east, north] = layer.bbox;
  return {
    west,
    north,
    resX: layer.resolution?.[0] ?? (east - west) / layer.width,
    resY: layer.resolution?.[1] ?? (north - south) / layer.height,
    width: layer.width,
    height: layer.height,
  };
}

/**
 * A longitude as a grid counts it: a grid on 0 … 360 (as ERA5 and many CF stores publish) holds
 * western longitudes at +360; any other grid takes them as they are.
 */
export function gridLongitude(grid: GridSpec, lon: number): number {
  return lon < grid.west && grid.west + grid.resX * grid.width > 180 ? lon + 360 : lon;
}

/** Polygon rings moved onto a 0 … 360 grid when they lie west of it (a field never spans the antimeridian here). */
export function ringsOnGrid(grid: GridSpec, polygons: PolygonCoords[]): PolygonCoords[] {
  const west = Math.min(...polygons.flatMap((rings) => rings[0]!.map((p) => p[0])));
  if (gridLongitude(grid, west) === west) return polygons;
  return polygons.map((rings) => rings.map((ring) => ring.map(([x, y]) => [x + 360, y] as [number, number])));
}
