/**
 * The Parquet codecs the station reader decodes with. Archives that
 * `climate-query build` writes are ZSTD (DuckDB's writer), and hyparquet
 * reads SNAPPY and uncompressed pages itself, so those are ready at once.
 * GZIP, BROTLI and LZ4 (Parquet from other writers, which `climate-query
 * index` accepts) load from hyparquet-compressors the first time a file's
 * footer names one: with its BROTLI dictionary and SNAPPY WebAssembly they
 * were 107 of the engine Worker's 357 KB, parsed and run at every cold start
 * for files that never use them.
 */
import { decompress as decompressZstd } from 'fzstd';
import type { Compressors, FileMetaData } from 'hyparquet';
import { ClimateQueryError } from '../contract/errors.ts';

/** Codecs for hyparquet's `compressors` option; the lazily loaded ones are added to this same object. */
export const codecs: Compressors = { ZSTD: (input) => decompressZstd(input) };

/** Decoded without loading anything: hyparquet's own (UNCOMPRESSED, SNAPPY) and {@link codecs}' ZSTD. */
const READY = new Set<string>(['UNCOMPRESSED', 'SNAPPY', 'ZSTD']);

let others: Promise<void> | undefined;

/**
 * Makes sure every codec `metadata`'s column chunks use can be decoded:
 * `undefined` when they already can (the usual case, no await needed), else
 * a promise that loads the other codecs once.
 */
export function codecsFor(metadata: FileMetaData): Promise<void> | undefined {
  for (const group of metadata.row_groups) {
    for (const chunk of group.columns) {
      const codec = chunk.meta_data?.codec;
      if (codec !== undefined && !READY.has(codec)) return loadOthers(codec);
    }
  }
  return undefined;
}

function loadOthers(codec: string): Promise<void> {
  others ??= import('./other-codecs.ts').then(
    ({ compressors }) => {
      for (const [name, fn] of Object.entries(compressors)) {
        // SNAPPY stays hyparquet's own: the same bytes out, without compiling WebAssembly.
        if (name !== 'SNAPPY' && fn && !codecs[name as keyof Compressors]) codecs[name as keyof Compressors] = fn;
      }
    },
    (cause: unknown) => {
      others = undefined;
      throw new ClimateQueryError(
        'engine_unavailable',
        `A station file is compressed with ${codec}, and the code that decodes it could not be loaded (${(cause as Error)?.message ?? String(cause)}). Reload the page when online, or rebuild the dataset with \`climate-query build\` (ZSTD).`,
        { cause },
      );
    },
  );
  return others;
}
