/**
 * Geodesics on the WGS84 ellipsoid, by GeographicLib (Karney's algorithms,
 * accurate to nanometres): distances for nearest-station and areas for the
 * 2 km² polygon rule.
 */
import * as geographiclib from 'geographiclib-geodesic';
import type { Position, PolygonCoords } from './wkt.ts';

// The package is CommonJS: Node exposes it as a default export, bundlers as named ones.
const { Geodesic } = ((geographiclib as unknown as { default?: typeof geographiclib }).default ??
  geographiclib) as typeof geographiclib;
const WGS84 = Geodesic.WGS84;

/** Geodesic distance in metres between two [lon, lat] positions. */
export function distanceM(a: Position, b: Position): number {
  return WGS84.Inverse(a[1], a[0], b[1], b[0], Geodesic.DISTANCE).s12 ?? NaN;
}

/**
 * A lower bound of {@link distanceM}, a hundred times cheaper: the
 * great-circle distance on a sphere of the mean radius, times 0.9944. Why it
 * holds: with the same latitude and longitude on both, a path on the WGS84
 * ellipsoid is at least min(M, N) / R times as long as its image on the
 * sphere, where the radii of curvature M and N are never below
 * b²/a = 6,335,439 m and R = 6,371,008.8 m (ratio 0.99442); the image is no
 * shorter than the great circle. One metre is taken off for rounding.
 */
export function distanceLowerBoundM(a: Position, b: Position): number {
  const rad = Math.PI / 180;
  const dLat = (b[1] - a[1]) * rad;
  const dLon = (b[0] - a[0]) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a[1] * rad) * Math.cos(b[1] * rad) * Math.sin(dLon / 2) ** 2;
  const s = 2 * 6_371_008.8 * Math.asin(Math.min(1, Math.sqrt(h)));
  return Math.max(0, s * 0.9944 - 1);
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
