/**
 * Every file a build writes carries the build's id in its own metadata (a
 * Parquet key-value pair, a GeoTIFF metadata item). The index and the
 * catalog record a hash of the bytes that hold it (a Parquet footer, a
 * GeoTIFF header), which readers fetch first anyway; so a file rewritten by
 * another build is told apart from the one recorded even when its size is
 * the same (docs/reliability.md), at no cost in requests.
 */
import { randomUUID } from 'node:crypto';

/** The metadata key of the build id, in Parquet key-value metadata and GeoTIFF metadata (upper-cased there, GDAL's habit). */
export const BUILD_ID_KEY = 'climate_query_build';

/** A new build id: when it ran, and a random part so two builds in one millisecond differ. */
export function newBuildId(): string {
  return `${new Date().toISOString()}/${randomUUID().slice(0, 8)}`;
}
