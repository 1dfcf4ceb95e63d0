/**
 * What proves a store's object is the one its build wrote: a digest per object, bound to the
 * store's id and the object's key, in one file at the store's root (`chunk-digests`), read by
 * range beside the object it checks, in the same round of requests
 * (docs/decisions/0004-chunk-digests.md). Two chunks swapped, a chunk rewritten, or a host answering
 * one key with another's bytes, even another store's, no longer decode into an answer; bytes that
 * fail are never cached.
 *
 * The file holds {@link DIGEST_BYTES} bytes per object, in the order of {@link digestSlot}:
 * the per-date range, each date's preview plane, then the data chunks row by row. A digest is the
 * first 8 bytes of SHA-256(id ‖ 0 ‖ key ‖ 0 ‖ the object's stored bytes). Free of node:* imports:
 * it is bundled for the browser.
 */
import { OBJECT_DIGEST_BYTES } from '../dataset/catalog.ts';
import { sha256Bytes } from '../io/digest.ts';

/** The digests file's key at a store's root (a name zarr readers pass over: not `.z*`, no array). */
export const DIGESTS_KEY = 'chunk-digests';

/** Bytes of one digest (the catalog's bound counts them). */
export const DIGEST_BYTES: number = OBJECT_DIGEST_BYTES;

/** Where an object's digest sits in the file, counted in digests. */
export type DigestSlot =
  | { kind: 'range' }
  | { kind: 'preview'; date: number }
  | { kind: 'data'; tx: number; ty: number };

/** The store's shape the slots are counted in: its dates and its data chunks across. */
export interface DigestShape {
  dates: number;
  chunksX: number;
  chunksY: number;
}

/** The data chunks across and down of a grid of `width` × `height` px cut in `chunk` px squares. */
export function digestShape(dates: number, width: number, height: number, chunk: number): DigestShape {
  return { dates, chunksX: Math.ceil(width / chunk), chunksY: Math.ceil(height / chunk) };
}

/** Index of `slot` in the digests file. */
export function digestSlot(shape: DigestShape, slot: DigestSlot): number {
  if (slot.kind === 'range') return 0;
  if (slot.kind === 'preview') return 1 + slot.date;
  return 1 + shape.dates + slot.ty * shape.chunksX + slot.tx;
}

/** Size of the digests file of a store of `shape`. */
export function digestsFileBytes(shape: DigestShape): number {
  return DIGEST_BYTES * (1 + shape.dates + shape.chunksX * shape.chunksY);
}

/** What a digest starts from before the object's bytes: the store's id and the object's key. */
export function digestPrefix(id: string, key: string): Uint8Array {
  return new TextEncoder().encode(`${id}\u0000${key}\u0000`);
}

/** The digest of object `key` of store `id` holding `bytes` (as stored: compressed). */
export async function objectDigest(id: string, key: string, bytes: Uint8Array): Promise<Uint8Array> {
  const prefix = digestPrefix(id, key);
  const all = new Uint8Array(prefix.length + bytes.length);
  all.set(prefix);
  all.set(bytes, prefix.length);
  return (await sha256Bytes(all)).subarray(0, DIGEST_BYTES);
}

/** Whether two digests are equal. */
export function sameDigest(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== DIGEST_BYTES || b.length !== DIGEST_BYTES) return false;
  for (let i = 0; i < DIGEST_BYTES; i++) if (a[i] !== b[i]) return false;
  return true;
}
