/**
 * Independent answers for raster tests. Nothing here shares code with
 * src/rasters: rasters are decoded whole with geotiff.js's readRasters and
 * indexed from the file's own origin and pixel size, and pixel coverage is
 * computed per pixel by Sutherland–Hodgman clipping of every ring against
 * the pixel rectangle in lon/lat, then shoelace area, holes subtracted
 * (coverage.ts instead accumulates signed edge areas in pixel space).
 */
import { fromFile } from 'geotiff';
import type { PolygonCoords, Position } from '../../src/contract/wkt.ts';
import type { GridSpec } from '../../src/rasters/coverage.ts';

/** A whole raster file in memory. */
export interface DecodedRaster extends GridSpec {
  nodata: number | null;
  /** bands[b][row * width + col], raw stored values. */
  bands: ArrayLike<number>[];
}

/**
 * The grid a `series` file describes in its CLIMATE_QUERY_SERIES metadata item (docs/layers.md),
 * parsed here on its own, or null for a map-shaped file.
 */
export function seriesMetadata(item: string | undefined): {
  width: number;
  height: number;
  bw: number;
  bh: number;
  west: number;
  north: number;
  resX: number;
  resY: number;
} | null {
  if (!item) return null;
  const m = /^grid (\d+)x(\d+) block (\d+)x(\d+) origin (\S+) (\S+) pixel (\S+) (\S+) EPSG:4326$/.exec(item);
  if (!m) throw new Error(`unreadable CLIMATE_QUERY_SERIES item: ${item}`);
  const n = m.slice(1).map(Number);
  return { width: n[0]!, height: n[1]!, bw: n[2]!, bh: n[3]!, west: n[4]!, north: n[5]!, resX: n[6]!, resY: n[7]! };
}

/**
 * The column of pixel (col, row) in a series file, written out from the layout's description
 * (blocks row-major over the grid, pixels row-major inside a block) rather than shared with it.
 */
export function seriesColumnOf(s: { width: number; bw: number; bh: number }, col: number, row: number): number {
  const blocksAcross = Math.ceil(s.width / s.bw);
  const block = Math.floor(row / s.bh) * blocksAcross + Math.floor(col / s.bw);
  return block * s.bw * s.bh + (row % s.bh) * s.bw + (col % s.bw);
}

/** Decodes every band of `path` in one readRasters call (a series file is turned back into its grid). */
export async function decodeWhole(path: string): Promise<DecodedRaster> {
  const tiff = await fromFile(path);
  try {
    const image = await tiff.getImage();
    const meta = (await image.getGDALMetadata()) as Record<string, string> | null;
    const series = seriesMetadata(meta?.CLIMATE_QUERY_SERIES);
    if (series) {
      const [stored] = (await image.readRasters()) as unknown as ArrayLike<number>[];
      const columns = image.getWidth();
      const dates = image.getHeight();
      const bands: Int16Array[] = [];
      for (let d = 0; d < dates; d++) {
        const band = new Int16Array(series.width * series.height);
        for (let r = 0; r < series.height; r++)
          for (let c = 0; c < series.width; c++)
            band[r * series.width + c] = stored![d * columns + seriesColumnOf(series, c, r)]!;
        bands.push(band);
      }
      return {
        west: series.west,
        north: series.north,
        resX: series.resX,
        resY: series.resY,
        width: series.width,
        height: series.height,
        nodata: image.getGDALNoData(),
        bands,
      };
    }
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
