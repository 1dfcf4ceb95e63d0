/**
 * The commonest mistake with WKT: latitude written first. `POINT (-33.275 19.025)` is a point in
 * the Atlantic off West Africa; a South African dataset answers it with nulls (a layer) or a
 * station thousands of kilometres away. An item that lies outside everything the dataset covers,
 * and inside it once its two numbers are swapped, is refused with `invalid_wkt` (reason
 * `swapped`) naming the item and the swapped text, so nobody takes the empty answer as data.
 */
import { fieldError } from './errors.ts';
import type { ParsedGeometry } from './wkt.ts';

/** [west, south, east, north], degrees. */
export type Extent = readonly [number, number, number, number];

function bboxOf(g: ParsedGeometry): Extent {
  if (g.kind === 'point') return [g.position[0], g.position[1], g.position[0], g.position[1]];
  let [w, s, e, n] = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, -Infinity, -Infinity];
  for (const rings of g.polygons)
    for (const [x, y] of rings[0]!) {
      w = Math.min(w, x);
      e = Math.max(e, x);
      s = Math.min(s, y);
      n = Math.max(n, y);
    }
  return [w, s, e, n];
}

/** Whether box `b` meets extent `x` (an extent on 0…360 meets western longitudes at +360). */
function meets(b: Extent, x: Extent): boolean {
  const lat = b[1] <= x[3] && b[3] >= x[1];
  const lon = (w: number, e: number) => w <= x[2] && e >= x[0];
  return lat && (lon(b[0], b[2]) || (x[2] > 180 && lon(b[0] + 360, b[2] + 360)));
}

const swapText = (g: ParsedGeometry): string =>
  g.kind === 'point'
    ? `POINT (${g.position[1]} ${g.position[0]})`
    : `${g.multi ? 'MULTIPOLYGON' : 'POLYGON'} with each pair swapped`;

/**
 * Throws `invalid_wkt` for the first item of `geometries` that meets none of `extents` and would
 * meet one with its coordinates swapped; `what` names what the extents are ("the tmax layer").
 */
export function refuseSwapped(geometries: readonly ParsedGeometry[], extents: readonly Extent[], what: string): void {
  if (extents.length === 0) return;
  for (const g of geometries) {
    const b = bboxOf(g);
    if (extents.some((x) => meets(b, x))) continue;
    const swapped: Extent = [b[1], b[0], b[3], b[2]];
    if (!extents.some((x) => meets(swapped, x))) continue;
    throw fieldError(
      'invalid_wkt',
      `/wkts/${g.index}`,
      `wkts item ${g.index + 1} lies outside ${what}, and inside it with its two numbers swapped (${swapText(g)}): WKT is written "longitude latitude"; swap them.`,
      { index: g.index, reason: 'swapped', swapped: swapText(g) },
    );
  }
}

/** The extent of a set of positions, grown by `margin` degrees each way; null for none. */
export function extentOf(positions: Iterable<{ lon: number; lat: number }>, margin: number): Extent | null {
  let [w, s, e, n] = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, -Infinity, -Infinity];
  for (const p of positions) {
    w = Math.min(w, p.lon);
    e = Math.max(e, p.lon);
    s = Math.min(s, p.lat);
    n = Math.max(n, p.lat);
  }
  return w > e ? null : [w - margin, s - margin, e + margin, n + margin];
}
