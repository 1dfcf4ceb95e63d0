/**
 * Exact pixel coverage of a polygon on a north-up lon/lat grid: for every
 * pixel, the fraction of its area that lies inside the polygon (holes
 * excluded, all parts of a MULTIPOLYGON included). This is what makes
 * polygon statistics work for polygons smaller than a pixel, where
 * pixel-centre selection returns nothing (docs/decisions/0002-platform-facts.md §Polygons).
 *
 * Method: signed-area accumulation, the way font rasterisers fill glyphs.
 * Each ring edge is cut at pixel row and column lines; a piece inside cell
 * (c, r) adds its trapezoid area to the right of itself to cell c and the
 * rest of its height to cell c + 1, and a running sum along each row then
 * turns those deltas into the covered area of every cell (Green's theorem:
 * area = −∮ x dy with y pointing down). Rings are oriented so that shells
 * add and holes subtract whatever order the WKT used. Work is proportional
 * to the edge crossings plus the cells of the polygon's bounding box.
 *
 * Geometry is planar in degrees, as in exactextract and GDAL: a pixel is a
 * lon/lat rectangle and a polygon edge is a straight line in lon/lat.
 */
import type { PolygonCoords } from '../contract/wkt.ts';

/** A north-up grid in lon/lat: pixel (col, row) spans [west + col·resX, west + (col+1)·resX] × [north − (row+1)·resY, north − row·resY]. */
export interface GridSpec {
  west: number;
  north: number;
  /** Pixel width in degrees (> 0). */
  resX: number;
  /** Pixel height in degrees (> 0; rows go south). */
  resY: number;
  width: number;
  height: number;
}

/** One pixel touched by a polygon and the fraction of it that is covered, in (0, 1]. */
export interface CoveredPixel {
  col: number;
  row: number;
  fraction: number;
}

/**
 * Fractions at or below this count as not covered. Floating-point noise on
 * an edge that lies exactly on a pixel line leaves ~1e-15 in the neighbour;
 * 1e-9 of a 0.02° pixel is 0.005 m², far below anything real.
 */
export const COVERAGE_EPSILON = 1e-9;

/**
 * The pixels of `grid` that `polygons` (parts of one geometry; each part its
 * shell then holes, rings closed) cover, with their covered fractions.
 * Pixels outside the grid are never returned; parts outside it are ignored.
 * Self-overlapping input is clamped to full coverage rather than counted twice.
 */
export function polygonCoverage(polygons: readonly PolygonCoords[], grid: GridSpec): CoveredPixel[] {
  const w = coverageWindow(polygons, grid);
  if (!w) return [];
  const { c0, c1, r0, r1 } = w;
  const acc = new Accumulator(c1 - c0, r1 - r0);
  for (const rings of polygons) {
    rings.forEach((ring, i) => {
      const xs = new Float64Array(ring.length);
      const ys = new Float64Array(ring.length);
      for (let k = 0; k < ring.length; k++) {
        // Window-local pixel coordinates keep the numbers small and exact-ish.
        xs[k] = (ring[k]![0] - grid.west) / grid.resX - c0;
        ys[k] = (grid.north - ring[k]![1]) / grid.resY - r0;
      }
      // ∮ x dy > 0 means this ring would subtract; flip it if it is a shell, keep it if it is a hole.
      const wantsPositive = i === 0;
      const sign = contourIntegral(xs, ys) > 0 === wantsPositive ? -1 : 1;
      for (let k = 0; k + 1 < ring.length; k++) acc.addEdge(xs[k]!, ys[k]!, xs[k + 1]!, ys[k + 1]!, sign);
    });
  }
  return acc.cells(c0, r0);
}

/**
 * Most cells of a grid one polygon's coverage may work over (its bounding box on the grid): 2²²,
 * a 2 km² field on a grid of 0.7 m pixels. Coverage holds 8 bytes a cell, so this bounds one
 * polygon to 32 MiB whatever pixel size a catalog claims (docs/reliability.md); callers check it
 * with {@link coverageWindow} before {@link polygonCoverage}.
 */
export const MAX_POLYGON_CELLS = 2 ** 22;

/** The cells of `grid` under the bounding box of `polygons` ([c0, c1) × [r0, r1)), or null when it misses the grid. */
export function coverageWindow(
  polygons: readonly PolygonCoords[],
  grid: GridSpec,
): { c0: number; c1: number; r0: number; r1: number } | null {
  // Bounding box in pixel space (x to the east, y to the south).
  let minX = Infinity;
  let maxX = -Infinity;
  let minY = Infinity;
  let maxY = -Infinity;
  for (const rings of polygons) {
    for (const [lon, lat] of rings[0] ?? []) {
      const x = (lon - grid.west) / grid.resX;
      const y = (grid.north - lat) / grid.resY;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
    }
  }
  const c0 = Math.max(0, Math.floor(minX));
  const c1 = Math.min(grid.width, Math.ceil(maxX));
  const r0 = Math.max(0, Math.floor(minY));
  const r1 = Math.min(grid.height, Math.ceil(maxY));
  return c0 < c1 && r0 < r1 ? { c0, c1, r0, r1 } : null;
}

/** ∮ x dy over a closed ring (trapezoid rule is exact for straight edges). */
function contourIntegral(xs: Float64Array, ys: Float64Array): number {
  let s = 0;
  for (let k = 0; k + 1 < xs.length; k++) s += ((xs[k]! + xs[k + 1]!) / 2) * (ys[k + 1]! - ys[k]!);
  return s;
}

/** Per-row area deltas over a window of `nc` × `nr` cells, summed along rows at the end. */
class Accumulator {
  // One spare column per row: the share of the last column's pieces meant for the cell beyond.
  private readonly d: Float64Array;

  constructor(
    private readonly nc: number,
    private readonly nr: number,
  ) {
    this.d = new Float64Array((nc + 1) * nr);
  }

  /** Adds the directed edge (x0, y0) → (x1, y1), its area contributions multiplied by `sign`. */
  addEdge(x0: number, y0: number, x1: number, y1: number, sign: number): void {
    if (y0 === y1) return; // Horizontal edges enclose no area in this scheme.
    const down = y1 > y0;
    const yLo = down ? y0 : y1;
    const yHi = down ? y1 : y0;
    const rFirst = Math.max(0, Math.floor(yLo));
    const rLast = Math.min(this.nr - 1, Math.ceil(yHi) - 1);
    const slope = (x1 - x0) / (y1 - y0);
    for (let r = rFirst; r <= rLast; r++) {
      const top = Math.max(yLo, r);
      const bottom = Math.min(yHi, r + 1);
      if (!(bottom > top)) continue;
      // Exact row lines where the edge crosses them, so interior cells sum to exactly 1.
      const xTop = top === y0 ? x0 : top === y1 ? x1 : x0 + (top - y0) * slope;
      const xBottom = bottom === y0 ? x0 : bottom === y1 ? x1 : x0 + (bottom - y0) * slope;
      this.addRowPiece(r, xTop, xBottom, (down ? bottom - top : top - bottom) * sign);
    }
  }

  /** A straight piece within row `r` spanning x from `xa` to `xb` and signed height `dy`. */
  private addRowPiece(r: number, xa: number, xb: number, dy: number): void {
    const row = r * (this.nc + 1);
    const lo = Math.min(xa, xb);
    const hi = Math.max(xa, xb);
    const cFirst = Math.floor(lo);
    const cLast = hi > lo ? Math.ceil(hi) - 1 : cFirst;
    const span = hi - lo;
    for (let c = cFirst; c <= cLast; c++) {
      if (c >= this.nc) break; // Right of the window: covers nothing inside it.
      const left = Math.max(lo, c);
      const right = Math.min(hi, c + 1);
      const part = span > 0 ? (dy * (right - left)) / span : dy;
      if (c < 0) {
        // Left of the window: every cell of the row lies to its right.
        this.d[row] = this.d[row]! + part;
        continue;
      }
      const mid = (left + right) / 2;
      this.d[row + c] = this.d[row + c]! + part * (c + 1 - mid);
      this.d[row + c + 1] = this.d[row + c + 1]! + part * (mid - c);
    }
  }

  cells(c0: number, r0: number): CoveredPixel[] {
    const out: CoveredPixel[] = [];
    for (let r = 0; r < this.nr; r++) {
      const row = r * (this.nc + 1);
      let cover = 0;
      for (let c = 0; c < this.nc; c++) {
        cover += this.d[row + c]!;
        if (cover > COVERAGE_EPSILON) out.push({ col: c0 + c, row: r0 + r, fraction: Math.min(1, cover) });
      }
    }
    return out;
  }
}
