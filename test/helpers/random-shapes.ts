/**
 * Seeded random test geometry on a lon/lat grid: sub-pixel shapes, concave
 * stars, shapes with holes, multipart shapes, pixel-aligned rectangles,
 * shapes on tile lines and across the raster edge, rings in either
 * orientation. Deterministic, so a failure can be replayed.
 */
import type { PolygonCoords, Position } from '../../src/contract/wkt.ts';
import { mulberry32 } from '../../src/builder/prng.ts';
import type { GridSpec } from '../../src/rasters/coverage.ts';

/** The grid shapes are placed on. */
export interface ShapeGrid extends GridSpec {
  tile: number;
}

/** A generated test polygon. */
export interface Shape {
  kind: string;
  polygons: PolygonCoords[];
}

/** Seeded uniform numbers in [0, 1) (mulberry32). */
export const rng = mulberry32;

const close = (ring: Position[]): Position[] => [...ring, ring[0]!];

/** A star-shaped (usually concave) ring around (cx, cy), radii in degrees, counter-clockwise. */
export function star(
  rand: () => number,
  cx: number,
  cy: number,
  rMin: number,
  rMax: number,
  spikes: number,
): Position[] {
  const pts: Position[] = [];
  const phase = rand() * Math.PI * 2;
  for (let i = 0; i < spikes * 2; i++) {
    const a = phase + (i * Math.PI) / spikes;
    const r = i % 2 === 0 ? rMax * (0.7 + 0.3 * rand()) : rMin * (0.5 + 0.5 * rand());
    pts.push([cx + r * Math.cos(a), cy + r * Math.sin(a)]);
  }
  return close(pts);
}

function rect(x0: number, y0: number, x1: number, y1: number): Position[] {
  return close([
    [x0, y0],
    [x1, y0],
    [x1, y1],
    [x0, y1],
  ]);
}

function maybeReverse(rand: () => number, ring: Position[]): Position[] {
  return rand() < 0.5 ? [...ring].reverse() : ring;
}

/** `n` shapes cycling through every kind. */
export function randomShapes(g: ShapeGrid, n: number, seed: number): Shape[] {
  const rand = rng(seed);
  const px = Math.min(g.resX, g.resY);
  const east = g.west + g.width * g.resX;
  const south = g.north - g.height * g.resY;
  const at = (col: number, row: number): Position => [g.west + col * g.resX, g.north - row * g.resY];
  const anywhere = (margin = 0): Position =>
    at(margin + rand() * (g.width - 2 * margin), margin + rand() * (g.height - 2 * margin));
  const kinds: Array<() => Shape> = [
    () => {
      // Sub-pixel triangle inside one pixel.
      const [x, y] = at(Math.floor(rand() * g.width), Math.floor(rand() * g.height));
      const p = (): Position => [x + rand() * g.resX, y - rand() * g.resY];
      return { kind: 'sub-pixel triangle', polygons: [[maybeReverse(rand, close([p(), p(), p()]))]] };
    },
    () => {
      const [cx, cy] = anywhere(3);
      return {
        kind: 'concave star',
        polygons: [
          [
            maybeReverse(
              rand,
              star(rand, cx, cy, px * (0.2 + rand()), px * (1 + 3 * rand()), 4 + Math.floor(rand() * 6)),
            ),
          ],
        ],
      };
    },
    () => {
      const [cx, cy] = anywhere(4);
      const r = px * (1.5 + 2 * rand());
      const shell = star(rand, cx, cy, r * 0.9, r, 12);
      const hole = star(rand, cx + r * 0.1, cy - r * 0.1, r * 0.25, r * 0.45, 5);
      return { kind: 'with hole', polygons: [[maybeReverse(rand, shell), maybeReverse(rand, hole)]] };
    },
    () => {
      const parts: PolygonCoords[] = [];
      const [cx, cy] = anywhere(6);
      for (let k = 0; k < 2 + Math.floor(rand() * 2); k++) {
        const ox = cx + (k - 1) * px * 2.5;
        parts.push([
          maybeReverse(rand, star(rand, ox, cy + (rand() - 0.5) * px, px * 0.3, px * (0.6 + rand() * 0.5), 5)),
        ]);
      }
      return { kind: 'multipart', polygons: parts };
    },
    () => {
      // Edges exactly on pixel lines.
      const c = Math.floor(rand() * (g.width - 3));
      const r = Math.floor(rand() * (g.height - 3));
      const [x0, y0] = at(c, r);
      const [x1, y1] = at(c + 1 + Math.floor(rand() * 2), r + 1 + Math.floor(rand() * 2));
      return { kind: 'pixel-aligned rectangle', polygons: [[maybeReverse(rand, rect(x0, y1, x1, y0))]] };
    },
    () => {
      // Centred on a tile corner, so the pixels come from up to four tiles.
      const tc = 1 + Math.floor(rand() * Math.max(1, Math.floor((g.width - 1) / g.tile)));
      const tr = 1 + Math.floor(rand() * Math.max(1, Math.floor((g.height - 1) / g.tile)));
      const [cx, cy] = at(
        Math.min(g.width - 1, tc * g.tile) + (rand() - 0.5) * 0.6,
        Math.min(g.height - 1, tr * g.tile) + (rand() - 0.5) * 0.6,
      );
      return {
        kind: 'on tile corner',
        polygons: [[maybeReverse(rand, star(rand, cx, cy, px * 0.5, px * (1 + rand() * 2), 6))]],
      };
    },
    () => {
      // Straddling one of the raster's edges; part of it lies outside the grid.
      const side = Math.floor(rand() * 4);
      const t = 0.1 + 0.8 * rand();
      const c: Position =
        side === 0
          ? [g.west, g.north - t * g.height * g.resY]
          : side === 1
            ? [east, g.north - t * g.height * g.resY]
            : side === 2
              ? [g.west + t * g.width * g.resX, g.north]
              : [g.west + t * g.width * g.resX, south];
      return {
        kind: 'across raster edge',
        polygons: [
          [
            maybeReverse(
              rand,
              star(rand, c[0] + (rand() - 0.5) * px, c[1] + (rand() - 0.5) * px, px * 0.5, px * (1 + rand() * 2), 7),
            ),
          ],
        ],
      };
    },
    () => {
      // Thin sliver crossing several pixels diagonally.
      const [x, y] = anywhere(5);
      const dx = px * (2 + 3 * rand());
      const dy = px * (rand() - 0.5) * 4;
      const w = px * 0.05;
      return {
        kind: 'sliver',
        polygons: [
          [
            maybeReverse(
              rand,
              close([
                [x, y],
                [x + dx, y + dy],
                [x + dx, y + dy + w],
                [x, y + w],
              ]),
            ),
          ],
        ],
      };
    },
  ];
  return Array.from({ length: n }, (_, i) => kinds[i % kinds.length]!());
}

/** WKT text of a (multi)polygon, used as the response key. */
export function toWkt(polygons: PolygonCoords[]): string {
  const ring = (r: Position[]) => `(${r.map(([x, y]) => `${x} ${y}`).join(', ')})`;
  const poly = (p: PolygonCoords) => `(${p.map(ring).join(', ')})`;
  return polygons.length === 1 ? `POLYGON ${poly(polygons[0]!)}` : `MULTIPOLYGON (${polygons.map(poly).join(', ')})`;
}
