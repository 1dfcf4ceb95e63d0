/**
 * Point in polygon for poly-aggregate: a station is inside when it lies in
 * an outer ring and in none of its holes, with the boundary counting as
 * inside (a station on the edge of a drawn farm belongs to it). Edges are
 * straight lines in longitude/latitude, as drawn on a web map.
 */
import type { PolygonCoords, Position } from '../contract/wkt.ts';

/** -1 outside, 0 on the boundary, 1 inside one ring (even–odd crossing rule). */
function ringSide(p: Position, ring: readonly Position[]): -1 | 0 | 1 {
  const [x, y] = p;
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i]!;
    const [xj, yj] = ring[j]!;
    // On the segment: collinear and within its box.
    const cross = (xj - xi) * (y - yi) - (yj - yi) * (x - xi);
    if (cross === 0 && x >= Math.min(xi, xj) && x <= Math.max(xi, xj) && y >= Math.min(yi, yj) && y <= Math.max(yi, yj))
      return 0;
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside ? 1 : -1;
}

/** True when `p` is inside or on the boundary of any of `polygons`. */
export function containsPoint(polygons: readonly PolygonCoords[], p: Position): boolean {
  return polygons.some((rings) => {
    const outer = ringSide(p, rings[0]!);
    if (outer === -1) return false;
    if (outer === 0) return true;
    // Inside the outer ring: outside every hole, or on a hole's edge (still the boundary).
    return rings.slice(1).every((hole) => ringSide(p, hole) !== 1);
  });
}
