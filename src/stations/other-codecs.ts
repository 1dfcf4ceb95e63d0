/**
 * GZIP, BROTLI and LZ4 for Parquet from other writers: a module of its own so
 * that a bundle puts it in a chunk of its own (named for what it is), loaded
 * by parquet-codecs.ts the first time a file's footer names one.
 */
export { compressors } from 'hyparquet-compressors';
