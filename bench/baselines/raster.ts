/**
 * The conventional ways to answer point and polygon queries from the same
 * raster values, stored the conventional way (one COG per date,
 * bench/dataset.ts):
 *
 * - {@link geotiffPerDate}: plain geotiff.js — `fromUrl` per file with its
 *   default options, and per file one `readRasters` of the window that holds
 *   every pixel the query needs (one decode per file, not one per point). Polygon
 *   statistics use the engine's exact coverage maths (src/rasters/coverage.ts,
 *   zonal.ts), so its answers must equal the engine's: only the storage
 *   layout and the reading differ.
 * - {@link geoblazePerDate}: geoblaze (`identify`, `mean`/`min`/`max`) on
 *   each file's URL, with its own rules (pixel centres for polygons; an
 *   axis-aligned rectangle is taken as a bounding box).
 *
 * Every file is worked on at once (`Promise.all`); the bench server lets at
 * most 6 requests through at a time, like a browser's connection pool.
 * Both return values in the layer's unit (stored × scale + offset),
 * unrounded; `null` for nodata, outside the grid, or no pixel.
 */
import { fromUrl, type GeoTIFF } from 'geotiff';
import geoblaze from 'geoblaze';
import type { RasterQuery, RasterResponse } from '../../src/contract/types.ts';
import type { ParsedGeometry, PolygonCoords } from '../../src/contract/wkt.ts';
import { polygonCoverage } from '../../src/rasters/coverage.ts';
import { ZonalStats } from '../../src/rasters/zonal.ts';

/** What a baseline needs to know about the layer. */
export interface BaselineFiles {
  /** One URL per period, in order. */
  urls: string[];
  /** Period key of each URL ('' for an undated layer). */
  periods: string[];
  scale: number;
  offset: number;
  nodata: number | null;
}

/** Keeps opened files between calls, like an app that holds on to its GeoTIFF objects ("warm"). */
export interface GeotiffState {
  opened: Map<string, Promise<GeoTIFF>>;
}

/** A fresh state: nothing opened ("cold"). */
export function newGeotiffState(): GeotiffState {
  return { opened: new Map() };
}

/** Answers `q` by reading one file per date with plain geotiff.js. */
export async function geotiffPerDate(
  q: RasterQuery,
  files: BaselineFiles,
  state: GeotiffState,
): Promise<RasterResponse> {
  const method = q.aggregationMethod ?? 'mean';
  const perFile = await Promise.all(
    files.urls.map(async (url) => {
      let p = state.opened.get(url);
      if (!p) state.opened.set(url, (p = fromUrl(url)));
      const tiff = await p;
      const image = await tiff.getImage();
      const [west, north] = image.getOrigin() as [number, number];
      const [resX, resYNeg] = image.getResolution() as [number, number];
      const grid = { west, north, resX, resY: -resYNeg, width: image.getWidth(), height: image.getHeight() };
      // The pixels of every geometry, then one window read that holds them all.
      const needs = q.geometries.map((g) =>
        g.kind === 'point' ? pixelAt(grid, g.position[0], g.position[1]) : polygonCoverage(g.polygons, grid),
      );
      let c0 = Infinity;
      let c1 = -Infinity;
      let r0 = Infinity;
      let r1 = -Infinity;
      for (const px of needs.flat()) {
        c0 = Math.min(c0, px.col);
        c1 = Math.max(c1, px.col + 1);
        r0 = Math.min(r0, px.row);
        r1 = Math.max(r1, px.row + 1);
      }
      if (!(c1 > c0)) return needs.map(() => null);
      const [band] = (await image.readRasters({ window: [c0, r0, c1, r1] })) as unknown as ArrayLike<number>[];
      return needs.map((pixels, gi): number | null => {
        const stats = new ZonalStats();
        for (const px of pixels) {
          const raw = band![(px.row - r0) * (c1 - c0) + (px.col - c0)]!;
          if (raw !== files.nodata && !Number.isNaN(raw)) stats.add(raw, px.fraction);
        }
        const raw = stats.result(q.geometries[gi]!.kind === 'point' ? 'min' : method);
        return raw === null ? null : raw * files.scale + files.offset;
      });
    }),
  );
  return shape(q, files, (gi, fi) => perFile[fi]![gi]!);
}

function pixelAt(
  grid: { west: number; north: number; resX: number; resY: number; width: number; height: number },
  lon: number,
  lat: number,
) {
  const col = Math.floor((lon - grid.west) / grid.resX);
  const row = Math.floor((grid.north - lat) / grid.resY);
  return col < 0 || row < 0 || col >= grid.width || row >= grid.height ? [] : [{ col, row, fraction: 1 }];
}

/** Forgets every raster geoblaze has parsed, so the next call starts cold. */
export function clearGeoblazeCache(): void {
  const cache = geoblaze.cache as Record<string, unknown>;
  for (const key of Object.keys(cache)) delete cache[key];
}

/** Answers `q` with geoblaze on each file's URL (its cache of parsed rasters is kept between calls). */
export async function geoblazePerDate(q: RasterQuery, files: BaselineFiles): Promise<RasterResponse> {
  const method = q.aggregationMethod ?? 'mean';
  const perFile = await Promise.all(
    files.urls.map((url) =>
      Promise.all(
        q.geometries.map(async (g): Promise<number | null> => {
          let raw: number | null | undefined;
          try {
            const out =
              g.kind === 'point' ? await geoblaze.identify(url, g.position) : await geoblaze[method](url, toGeoJson(g));
            raw = Array.isArray(out) ? (out[0] as number | null | undefined) : (out as number | null | undefined);
          } catch {
            // geoblaze throws when a geometry holds no pixel centre (or lies outside the raster).
            raw = null;
          }
          if (raw === null || raw === undefined || raw === files.nodata || Number.isNaN(raw)) return null;
          return raw * files.scale + files.offset;
        }),
      ),
    ),
  );
  return shape(q, files, (gi, fi) => perFile[fi]![gi]!);
}

function toGeoJson(
  g: ParsedGeometry,
): { type: 'Polygon'; coordinates: PolygonCoords } | { type: 'MultiPolygon'; coordinates: PolygonCoords[] } {
  if (g.kind !== 'polygon') throw new Error('not a polygon');
  return g.polygons.length === 1
    ? { type: 'Polygon', coordinates: g.polygons[0]! }
    : { type: 'MultiPolygon', coordinates: g.polygons };
}

/** The contract's response shape from value(geometry index, file index). */
function shape(q: RasterQuery, files: BaselineFiles, value: (gi: number, fi: number) => number | null): RasterResponse {
  const out: RasterResponse = {};
  const wanted = q.range ? new Set(q.range.keys) : null;
  q.geometries.forEach((g, gi) => {
    if (!wanted) {
      out[g.key] = value(gi, 0);
      return;
    }
    const series: Record<string, number | null> = {};
    files.periods.forEach((p, fi) => {
      if (wanted.has(p)) series[p] = value(gi, fi);
    });
    out[g.key] = series;
  });
  return out;
}
