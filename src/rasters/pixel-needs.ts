/**
 * Which pixels of a layer's grid each geometry of a query needs: the one pixel holding a point
 * (gdallocationinfo's rule), the pixels a field covers with their covered fractions (exactextract's,
 * coverage.ts). Pure: nothing is read.
 */
import { fieldError } from '../contract/errors.ts';
import type { RasterQuery } from '../contract/types.ts';
import type { RasterLayerEntry } from '../dataset/catalog.ts';
import { type CoveredPixel, coverageWindow, type GridSpec, MAX_POLYGON_CELLS, polygonCoverage } from './coverage.ts';
import { gridLongitude, gridOf, layerTypeLabel, ringsOnGrid } from './layer-plan.ts';

/** The pixels each of `geometries` needs on `layer`'s grid, in their order; none outside the grid. */
export function pixelNeeds(layer: RasterLayerEntry, geometries: RasterQuery['geometries']): CoveredPixel[][] {
  const grid = gridOf(layer);
  return geometries.map((g, index) => {
    if (g.kind === 'point') {
      const px = pixelOf(grid, gridLongitude(grid, g.position[0]), g.position[1]);
      return px ? [{ ...px, fraction: 1 }] : [];
    }
    // Bounded by the pixels the field covers, whatever pixel size the catalog claims.
    const polygons = ringsOnGrid(grid, g.polygons);
    const w = coverageWindow(polygons, grid);
    const cells = w ? (w.c1 - w.c0) * (w.r1 - w.r0) : 0;
    if (cells > MAX_POLYGON_CELLS) {
      throw fieldError(
        'limit_exceeded',
        `/wkts/${index}`,
        `Item ${index} of wkts spans ${cells.toLocaleString('en')} pixels of ${layerTypeLabel(layer)}, more than the ${MAX_POLYGON_CELLS.toLocaleString('en')} one polygon may; draw a smaller field, or ask a coarser layer.`,
        { of: 'pixels', max: MAX_POLYGON_CELLS, got: cells, index },
      );
    }
    return polygonCoverage(polygons, grid);
  });
}

/** The pixel containing (lon, lat), or null outside the grid (gdallocationinfo's rule). */
export function pixelOf(grid: GridSpec, lon: number, lat: number): { col: number; row: number } | null {
  const col = Math.floor((lon - grid.west) / grid.resX);
  const row = Math.floor((grid.north - lat) / grid.resY);
  if (col < 0 || row < 0 || col >= grid.width || row >= grid.height) return null;
  return { col, row };
}
