/**
 * zlib decompression with a known result size, for objects whose size the
 * reader knows before it reads them (a Zarr chunk: dates × chunk² × 2 bytes).
 * The platform's own `DecompressionStream` (browsers, Workers, Node ≥ 18)
 * does the work; output beyond the expected size stops the stream at once,
 * so a hostile object cannot make a reader allocate more than it asked for.
 */
import { ClimateQueryError } from '../contract/errors.ts';

/**
 * The `size` bytes `data` inflates to (zlib format, RFC 1950). Throws
 * `dataset_unavailable` naming `what` when the stream is damaged, or ends
 * before or after `size` bytes.
 */
export async function inflateExactly(
  data: Uint8Array,
  size: number,
  what: string,
  format: 'deflate' | 'gzip' = 'deflate',
): Promise<Uint8Array> {
  const out = new Uint8Array(size);
  let at = 0;
  const damaged = (why: string, cause?: unknown) =>
    new ClimateQueryError('dataset_unavailable', `${what} is damaged: ${why}; copy the dataset to the host again.`, {
      ...(cause !== undefined ? { cause } : {}),
    });
  const reader = new Blob([data as Uint8Array<ArrayBuffer>])
    .stream()
    .pipeThrough(new DecompressionStream(format))
    .getReader();
  try {
    for (;;) {
      let step: ReadableStreamReadResult<Uint8Array>;
      try {
        step = await reader.read();
      } catch (err) {
        throw damaged(`it does not inflate (${err instanceof Error ? err.message : String(err)})`, err);
      }
      if (step.done) break;
      if (at + step.value.length > size) throw damaged(`it inflates to more than the ${size} bytes it must hold`);
      out.set(step.value, at);
      at += step.value.length;
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
  if (at !== size) throw damaged(`it inflates to ${at} bytes, not ${size}`);
  return out;
}
