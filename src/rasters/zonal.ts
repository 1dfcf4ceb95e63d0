/**
 * Polygon statistics with exactextract's semantics (docs/decisions/0002-platform-facts.md §Polygons): with cᵢ
 * the covered fraction of pixel i and xᵢ its value, mean = Σxᵢcᵢ / Σcᵢ,
 * min and max over every pixel with cᵢ > 0; nodata pixels take no part;
 * when no covered pixel has a value the answer is null.
 */
import type { AggregationMethod } from '../contract/raster-layers.ts';

/** Running statistics of one polygon and one band, fed pixel by pixel. */
export class ZonalStats {
  private weight = 0;
  private weighted = 0;
  private lo = Infinity;
  private hi = -Infinity;

  /** Adds a valid (non-nodata) pixel value with its covered fraction. */
  add(value: number, fraction: number): void {
    this.weight += fraction;
    this.weighted += value * fraction;
    if (value < this.lo) this.lo = value;
    if (value > this.hi) this.hi = value;
  }

  /** The statistic, or null when no valid pixel was covered. */
  result(method: AggregationMethod): number | null {
    if (!(this.weight > 0)) return null;
    if (method === 'min') return this.lo;
    if (method === 'max') return this.hi;
    return this.weighted / this.weight;
  }
}
