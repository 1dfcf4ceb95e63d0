/**
 * coverage.ts against an independent oracle (per-pixel Sutherland–Hodgman
 * clipping in lon/lat + shoelace, holes subtracted), pixel by pixel, for a
 * few hundred random shapes of every kind, plus exact cases.
 */
import { describe, expect, it } from 'vitest';
import type { PolygonCoords, Position } from '../../src/contract/wkt.ts';
import { COVERAGE_EPSILON, polygonCoverage, type GridSpec } from '../../src/rasters/coverage.ts';
import { clipToRect, oracleCoverage, pixelFraction, shoelace } from '../helpers/raster-oracle.ts';
import { randomShapes } from '../helpers/random-shapes.ts';

// Non-square pixels so x and y mix-ups show.
const grid: GridSpec = { west: 18, north: -33, resX: 0.02, resY: 0.025, width: 60, height: 40 };
const oracleGrid = { ...grid };

function asMap(cells: Array<{ col: number; row: number; fraction: number }>): Map<string, number> {
  return new Map(cells.map((c) => [`${c.col},${c.row}`, c.fraction]));
}

function expectSameCoverage(polygons: PolygonCoords[], label: string): void {
  const got = asMap(polygonCoverage(polygons, grid));
  const want = asMap(oracleCoverage(polygons, oracleGrid, COVERAGE_EPSILON));
  for (const [k, f] of want) {
    const g = got.get(k);
    // A pixel the oracle sees barely above the threshold may fall just below it here, and vice versa.
    if (g === undefined && f < 1e-7) continue;
    expect(g, `${label}: pixel ${k} missing (oracle ${f})`).toBeDefined();
    expect(Math.abs(g! - f), `${label}: pixel ${k}`).toBeLessThan(1e-9);
  }
  for (const [k, g] of got) {
    if (!want.has(k)) expect(g, `${label}: pixel ${k} extra`).toBeLessThan(1e-7);
  }
}

describe('polygonCoverage', () => {
  it('matches per-pixel polygon clipping for 400 random shapes of every kind', () => {
    const shapes = randomShapes({ ...grid, tile: 16 }, 400, 1234);
    for (const [i, s] of shapes.entries()) expectSameCoverage(s.polygons, `#${i} ${s.kind}`);
  });

  it('sums to the area of the polygon inside the grid', () => {
    const gridRing: Position[] = [
      [grid.west, grid.north - grid.height * grid.resY],
      [grid.west + grid.width * grid.resX, grid.north - grid.height * grid.resY],
      [grid.west + grid.width * grid.resX, grid.north],
      [grid.west, grid.north],
      [grid.west, grid.north - grid.height * grid.resY],
    ];
    const [xmin, ymin] = gridRing[0]!;
    const [xmax, ymax] = gridRing[2]!;
    for (const s of randomShapes({ ...grid, tile: 16 }, 120, 99)) {
      const cells = polygonCoverage(s.polygons, grid);
      const covered = cells.reduce((a, c) => a + c.fraction, 0) * grid.resX * grid.resY;
      let inside = 0;
      for (const rings of s.polygons)
        rings.forEach((ring, i) => (inside += (i === 0 ? 1 : -1) * shoelace(clipToRect(ring, xmin, ymin, xmax, ymax))));
      expect(covered).toBeCloseTo(inside, 12);
    }
  });

  it('gives exactly 1 inside, nothing outside, and 0 in a pixel-sized hole', () => {
    const p = (c: number, r: number): Position => [grid.west + c * grid.resX, grid.north - r * grid.resY];
    const square = (c0: number, r0: number, c1: number, r1: number): Position[] => [
      p(c0, r1),
      p(c1, r1),
      p(c1, r0),
      p(c0, r0),
      p(c0, r1),
    ];
    const cells = asMap(polygonCoverage([[square(10, 10, 14, 13), square(12, 11, 13, 12).reverse()]], grid));
    expect(cells.size).toBe(4 * 3 - 1);
    for (const f of cells.values()) expect(f).toBeCloseTo(1, 12);
    expect(cells.has('12,11')).toBe(false);
    expect(polygonCoverage([[square(-20, -20, -10, -10)]], grid)).toEqual([]);
    expect(polygonCoverage([[square(grid.width + 1, 2, grid.width + 5, 4)]], grid)).toEqual([]);
  });

  it('does not depend on ring orientation', () => {
    for (const s of randomShapes({ ...grid, tile: 16 }, 40, 7)) {
      const flipped = s.polygons.map((rings) => rings.map((r) => [...r].reverse()));
      const a = asMap(polygonCoverage(s.polygons, grid));
      const b = asMap(polygonCoverage(flipped, grid));
      expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
      for (const [k, f] of a) expect(b.get(k)!).toBeCloseTo(f, 12);
    }
  });

  it('covers part of a pixel for a polygon smaller than a pixel', () => {
    const [x, y] = [grid.west + 5.2 * grid.resX, grid.north - 7.3 * grid.resY];
    const tiny: Position[] = [
      [x, y],
      [x + 0.1 * grid.resX, y],
      [x + 0.1 * grid.resX, y + 0.2 * grid.resY],
      [x, y + 0.2 * grid.resY],
      [x, y],
    ];
    const cells = polygonCoverage([[tiny]], grid);
    expect(cells).toHaveLength(1);
    expect(cells[0]!.col).toBe(5);
    expect(cells[0]!.row).toBe(7);
    expect(cells[0]!.fraction).toBeCloseTo(pixelFraction([[tiny]], oracleGrid, 5, 7), 12);
    expect(cells[0]!.fraction).toBeCloseTo(0.02, 9);
  });
});
