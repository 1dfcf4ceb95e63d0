/**
 * Independent answers for raster tests. Nothing here shares code with
 * src/rasters: rasters are decoded whole with geotiff.js's readRasters (a
 * zarr store with zarr-read.ts) and indexed from the file's own origin and
 * pixel size, and pixel coverage is
 * computed per pixel by Sutherland–Hodgman clipping of every ring against
 * the pixel rectangle in lon/lat, then shoelace area, holes subtracted
 * (coverage.ts instead accumulates signed edge areas in pixel space).
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fromFile } from 'geotiff';
import { readZarrCoordinate, readZarrInt16 } from './zarr-read.ts';
import type { PolygonCoords, Position } from '../../src/contract/wkt.ts';
import type { GridSpec } from '../../src/rasters/coverage.ts';

/** A whole raster file in memory. */
export interface DecodedRaster extends GridSpec {
  nodata: number | null;
  /** bands[b][row * width + col], raw stored values. */
  bands: ArrayLike<number>[];
}

/**
 * Decodes every band of `path`: a GeoTIFF in one readRasters call, a zarr store (a folder) chunk by
 * chunk. A store's grid is derived from its pixel centres, which can be an ulp off the grid they were
 * written from; `grid` (the catalog's origin and pixel size) replaces it where a test looks up points
 * exactly on pixel lines.
 */
export async function decodeWhole(
  path: string,
  grid?: Pick<GridSpec, 'west' | 'north' | 'resX' | 'resY'>,
): Promise<DecodedRaster> {
  if (statSync(path).isDirectory()) return { ...decodeZarrStore(path), ...(grid ?? {}) };
  const tiff = await fromFile(path);
  try {
    const image = await tiff.getImage();
    const [west, north] = image.getOrigin() as [number, number];
    const [resX, resYNeg] = image.getResolution() as [number, number];
    const bands = (await image.readRasters()) as unknown as ArrayLike<number>[];
    return {
      west,
      north,
      resX,
      resY: -resYNeg,
      width: image.getWidth(),
      height: image.getHeight(),
      nodata: image.getGDALNoData(),
      bands,
    };
  } finally {
    await tiff.close();
  }
}

/**
 * A zarr store's data array (the root array with dimensions time, lat, lon, found from the store's
 * own `.zmetadata`), with the grid from its lat/lon pixel centres.
 */
function decodeZarrStore(store: string): DecodedRaster {
  const meta = JSON.parse(readFileSync(join(store, '.zmetadata'), 'utf8')) as {
    metadata: Record<string, { _ARRAY_DIMENSIONS?: string[] }>;
  };
  const variable = Object.entries(meta.metadata)
    .filter(([k, v]) => /^[^/]+\/\.zattrs$/.test(k) && v._ARRAY_DIMENSIONS?.join() === 'time,lat,lon')
    .map(([k]) => k.split('/')[0]!)[0];
  if (!variable) throw new Error(`${store} has no (time, lat, lon) array`);
  const { shape, data, fill } = readZarrInt16(store, variable);
  const [dates, height, width] = shape as [number, number, number];
  const lat = readZarrCoordinate(store, 'lat');
  const lon = readZarrCoordinate(store, 'lon');
  const resX = (lon[width - 1]! - lon[0]!) / (width - 1);
  const resY = (lat[0]! - lat[height - 1]!) / (height - 1);
  const plane = width * height;
  return {
    west: lon[0]! - resX / 2,
    north: lat[0]! + resY / 2,
    resX,
    resY,
    width,
    height,
    nodata: fill,
    bands: Array.from({ length: dates }, (_, d) => data.subarray(d * plane, (d + 1) * plane)),
  };
}

/** The raw value at (lon, lat) by direct array lookup, or null off the raster or at nodata. */
export function lookup(r: DecodedRaster, band: number, lon: number, lat: number): number | null {
  const col = Math.floor((lon - r.west) / r.resX);
  const row = Math.floor((r.north - lat) / r.resY);
  if (col < 0 || row < 0 || col >= r.width || row >= r.height) return null;
  const v = r.bands[band]![row * r.width + col]!;
  return v === r.nodata ? null : v;
}

/** Sutherland–Hodgman: `ring` (closed or not) clipped to the rectangle; returns the clipped vertex list. */
export function clipToRect(
  ring: readonly Position[],
  xmin: number,
  ymin: number,
  xmax: number,
  ymax: number,
): Position[] {
  let pts: Position[] = ring.slice(0, ring.length - (samePoint(ring[0]!, ring[ring.length - 1]!) ? 1 : 0));
  const edges: Array<[(p: Position) => boolean, (a: Position, b: Position) => Position]> = [
    [(p) => p[0] >= xmin, (a, b) => atX(a, b, xmin)],
    [(p) => p[0] <= xmax, (a, b) => atX(a, b, xmax)],
    [(p) => p[1] >= ymin, (a, b) => atY(a, b, ymin)],
    [(p) => p[1] <= ymax, (a, b) => atY(a, b, ymax)],
  ];
  for (const [inside, cross] of edges) {
    if (pts.length === 0) break;
    const out: Position[] = [];
    for (let i = 0; i < pts.length; i++) {
      const cur = pts[i]!;
      const prev = pts[(i + pts.length - 1) % pts.length]!;
      if (inside(cur)) {
        if (!inside(prev)) out.push(cross(prev, cur));
        out.push(cur);
      } else if (inside(prev)) {
        out.push(cross(prev, cur));
      }
    }
    pts = out;
  }
  return pts;
}

function samePoint(a: Position, b: Position): boolean {
  return a[0] === b[0] && a[1] === b[1];
}
function atX(a: Position, b: Position, x: number): Position {
  return [x, a[1] + ((b[1] - a[1]) * (x - a[0])) / (b[0] - a[0])];
}
function atY(a: Position, b: Position, y: number): Position {
  return [a[0] + ((b[0] - a[0]) * (y - a[1])) / (b[1] - a[1]), y];
}

/** Unsigned shoelace area of an open vertex list. */
export function shoelace(pts: readonly Position[]): number {
  let s = 0;
  for (let i = 0; i < pts.length; i++) {
    const a = pts[i]!;
    const b = pts[(i + 1) % pts.length]!;
    s += a[0] * b[1] - b[0] * a[1];
  }
  return Math.abs(s) / 2;
}

/** Covered fraction of pixel (col, row) of `r`'s grid by a (multi)polygon: shells minus holes, per part. */
export function pixelFraction(
  polygons: readonly PolygonCoords[],
  r: Pick<DecodedRaster, 'west' | 'north' | 'resX' | 'resY'>,
  col: number,
  row: number,
): number {
  const xmin = r.west + col * r.resX;
  const xmax = r.west + (col + 1) * r.resX;
  const ymax = r.north - row * r.resY;
  const ymin = r.north - (row + 1) * r.resY;
  let area = 0;
  for (const rings of polygons) {
    rings.forEach((ring, i) => {
      // Shoelace relative to the pixel corner: absolute lon/lat products lose ~1e-11 of a pixel.
      const a = shoelace(clipToRect(ring, xmin, ymin, xmax, ymax).map(([x, y]): Position => [x - xmin, y - ymin]));
      area += i === 0 ? a : -a;
    });
  }
  return Math.min(1, Math.max(0, area / ((xmax - xmin) * (ymax - ymin))));
}

/** Every pixel of the raster grid with its oracle fraction above `epsilon`. */
export function oracleCoverage(
  polygons: readonly PolygonCoords[],
  r: Pick<DecodedRaster, 'west' | 'north' | 'resX' | 'resY' | 'width' | 'height'>,
  epsilon: number,
): Array<{ col: number; row: number; fraction: number }> {
  let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const rings of polygons) {
    for (const [x, y] of rings[0]!) {
      minX = Math.min(minX, x);
      maxX = Math.max(maxX, x);
      minY = Math.min(minY, y);
      maxY = Math.max(maxY, y);
    }
  }
  const c0 = Math.max(0, Math.floor((minX - r.west) / r.resX) - 1);
  const c1 = Math.min(r.width - 1, Math.floor((maxX - r.west) / r.resX) + 1);
  const r0 = Math.max(0, Math.floor((r.north - maxY) / r.resY) - 1);
  const r1 = Math.min(r.height - 1, Math.floor((r.north - minY) / r.resY) + 1);
  const out: Array<{ col: number; row: number; fraction: number }> = [];
  for (let row = r0; row <= r1; row++) {
    for (let col = c0; col <= c1; col++) {
      const fraction = pixelFraction(polygons, r, col, row);
      if (fraction > epsilon) out.push({ col, row, fraction });
    }
  }
  return out;
}

/** exactextract-style statistic of band `band` over oracle coverage, in raw stored units. */
export function oracleStat(
  r: DecodedRaster,
  band: number,
  cells: Array<{ col: number; row: number; fraction: number }>,
  method: 'min' | 'mean' | 'max',
): number | null {
  let w = 0;
  let s = 0;
  let lo = Infinity;
  let hi = -Infinity;
  for (const { col, row, fraction } of cells) {
    const v = r.bands[band]![row * r.width + col]!;
    if (v === r.nodata) continue;
    w += fraction;
    s += v * fraction;
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  if (w === 0) return null;
  return method === 'min' ? lo : method === 'max' ? hi : s / w;
}
