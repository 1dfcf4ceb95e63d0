/**
 * An archive's file read whole, within a bound: its size is checked before it is read, and a
 * gzipped file is inflated only up to the same bound, so neither a huge file nor a small `.gz`
 * that inflates to gigabytes is taken into memory. A file that cannot be read or inflated is
 * refused by name, never a stack.
 */
import { readFile, stat } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { BuildError } from '../build-error.ts';

/**
 * The most bytes one input file may hold, inflated: 256 MiB. The largest files NOAA publishes
 * per station are a GHCNh station-year (about 20 MB as PSV), a GHCN-Daily period of record
 * (about 30 MB as `.dly`) and the station lists (about 30 MB); V8 makes no string longer than
 * 512 MiB, and a file read as text is held twice while it is split into lines.
 */
export const MAX_INPUT_BYTES = 256 * 2 ** 20;

const mib = (n: number) => `${(n / 2 ** 20).toFixed(0)} MiB`;

/** Whether `bytes` start as gzip does. */
export const isGzip = (bytes: Uint8Array): boolean => bytes[0] === 0x1f && bytes[1] === 0x8b;

/** The file's bytes, inflated when gzipped; refused when it (or what it inflates to) exceeds {@link MAX_INPUT_BYTES}. */
export async function readInputBytes(path: string, limit = MAX_INPUT_BYTES): Promise<Buffer> {
  const size = (await stat(path)).size;
  if (size > limit)
    throw new BuildError(
      'invalid_input',
      `${path} is ${mib(size)}; an input file may hold at most ${mib(limit)}. Split it (by station or by year) and import the parts.`,
      { file: path },
    );
  const bytes = await readFile(path);
  if (!isGzip(bytes)) return bytes;
  return inflate(bytes, path, limit);
}

/** `bytes` gunzipped, at most `limit` of them; refused by `path` when more, or when not whole gzip. */
export function inflate(bytes: Buffer, path: string, limit = MAX_INPUT_BYTES): Buffer {
  try {
    return gunzipSync(bytes, { maxOutputLength: limit });
  } catch (err) {
    const tooLarge = err instanceof RangeError || (err as { code?: string })?.code === 'ERR_BUFFER_TOO_LARGE';
    throw new BuildError(
      tooLarge ? 'invalid_input' : 'unreadable_input',
      tooLarge
        ? `${path} inflates to more than ${mib(limit)}; an input file may hold at most that much. Split it and import the parts.`
        : `${path} is not a whole gzip file (${(err as Error).message}): download it again.`,
      { file: path, cause: err },
    );
  }
}

/** The file as text (UTF-8 or Latin-1), within {@link readInputBytes}'s bound. */
export async function readInputText(path: string, encoding: 'utf8' | 'latin1' = 'utf8'): Promise<string> {
  return (await readInputBytes(path)).toString(encoding);
}
