/**
 * Every raster layout the engine reads, by the name a catalog gives it (src/dataset/catalog.ts
 * describes each one's files). The engine asks this registry, never a layout's name: a new layout
 * is one entry here, its catalog description and checks, and its tests.
 */
import { layoutOf, type RasterLayerEntry, type RasterLayout } from '../../dataset/catalog.ts';
import type { LayoutReader } from '../raster-reader.ts';
import { cogCollectionReader } from './cog-collection-reader.ts';
import { kerchunkParquetReader, kerchunkReader } from './kerchunk-reader.ts';
import { mapReader } from './map-reader.ts';
import { zarrReader } from './zarr-reader.ts';
import { zarrStoreReader } from './zarr-store-reader.ts';

export const LAYOUT_READERS: Record<RasterLayout, LayoutReader> = {
  map: mapReader,
  zarr: zarrReader,
  'zarr-store': zarrStoreReader,
  'cog-collection': cogCollectionReader,
  kerchunk: kerchunkReader,
  'kerchunk-parquet': kerchunkParquetReader,
};

/** The reader of `layer`'s layout. */
export function readerOf(layer: RasterLayerEntry): LayoutReader {
  return LAYOUT_READERS[layoutOf(layer)];
}
