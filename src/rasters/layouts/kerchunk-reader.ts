/**
 * The `kerchunk` layout's reader: a kerchunk reference to a NetCDF-4/HDF5 file's chunks, read in
 * place (kerchunk-file.ts, loaded the first time a dataset has such a layer). Its map preview reads
 * every chunk of the date, as a published store's does.
 */
import type { LayoutReader } from '../raster-reader.ts';
import { tilePreview } from './tile-preview.ts';

export const kerchunkReader: LayoutReader = {
  open: async (ctx, layer, index) => (await import('../kerchunk-file.ts')).openKerchunk(ctx, layer, index, 'json'),
  previewPixels: (layer) => layer.width * layer.height,
  preview: tilePreview,
};

/** The `kerchunk-parquet` layout's reader: the same reference in its Parquet form. */
export const kerchunkParquetReader: LayoutReader = {
  ...kerchunkReader,
  open: async (ctx, layer, index) => (await import('../kerchunk-file.ts')).openKerchunk(ctx, layer, index, 'parquet'),
};
