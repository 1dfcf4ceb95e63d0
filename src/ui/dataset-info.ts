/**
 * What the UI reads from the dataset's catalog: the area it covers. Kept
 * apart from the engine, which reads the catalog for answers; here it only
 * shapes the page, so a user's own dataset shows nothing of the demo.
 */
import type { Catalog } from '../dataset/catalog.ts';

/**
 * [west, south, east, north] to open the map on: the stations when the
 * dataset has any (that is where answers are), else its lon/lat rasters;
 * South Africa's mainland when it has neither.
 */
export function datasetBounds(catalog: Catalog): [number, number, number, number] {
  let [w, s, e, n] = [Infinity, Infinity, -Infinity, -Infinity];
  const add = (lon: number, lat: number) => {
    if (!Number.isFinite(lon) || !Number.isFinite(lat) || Math.abs(lat) > 90 || Math.abs(lon) > 180) return;
    [w, s, e, n] = [Math.min(w, lon), Math.min(s, lat), Math.max(e, lon), Math.max(n, lat)];
  };
  for (const st of catalog.stations?.stations ?? []) add(st.lon, st.lat);
  for (const r of catalog.stations?.stations.length ? [] : catalog.rasters ?? []) {
    // Only geographic grids: a projected bbox is in metres.
    if (!/4326|WGS ?84|CRS84/i.test(r.crs ?? '')) continue;
    add(r.bbox[0], r.bbox[1]);
    add(r.bbox[2], r.bbox[3]);
  }
  if (!(w < e && s < n)) return [16.3, -34.9, 33.0, -22.1];
  return [w, s, e, n];
}
