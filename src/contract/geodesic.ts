/**
 * Geodesics on the WGS84 ellipsoid, by GeographicLib (Karney's algorithms,
 * accurate to nanometres): distances for nearest-station and areas for the
 * 2 km² polygon rule.
 */
import * as geographiclib from 'geographiclib-geodesic';
import type { Position, PolygonCoords } from './wkt.ts';

// The package is CommonJS: Node exposes it as a default export, bundlers as named ones.
const { Geodesic } = ((geographiclib as unknown as { default?: typeof geographiclib }).default ?? geographiclib) as typeof geographiclib;
const WGS84 = Geodesic.WGS84;

/** Geodesic distance in metres between two [lon, lat] positions. */
export function distanceM(a: Position, b: Position): number {
  return WGS84.Inverse(a[1], a[0], b[1], b[0], Geodesic.DISTANCE).s12 ?? NaN;
}

function ringAreaM2(ring: readonly Position[]): number {
  const poly = WGS84.Polygon(false);
  // The closing position repeats the first; GeographicLib closes rings itself.
  for (let i = 0; i < ring.length - 1; i++) poly.AddPoint(ring[i]![1], ring[i]![0]);
  return Math.abs(poly.Compute(false, true).area ?? NaN);
}

/** Geodesic area in m² of polygons (outer rings minus holes), summed over parts. */
export function areaM2(polygons: readonly PolygonCoords[]): number {
  let total = 0;
  for (const rings of polygons) {
    rings.forEach((ring, i) => {
      total += (i === 0 ? 1 : -1) * ringAreaM2(ring);
    });
  }
  return total;
}
