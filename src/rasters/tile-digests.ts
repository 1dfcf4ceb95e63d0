/**
 * What proves a `map` GeoTIFF's tile is the one its build wrote: a table of one digest per tile,
 * appended after the last byte GDAL wrote, and located by the catalog's `tiles` entry with the
 * table's SHA-256 (docs/decisions/0004-chunk-digests.md). The reader reads the table beside the
 * file's header, in the same round, and checks each tile's bytes before geotiff.js decodes them.
 *
 * A tile's digest is the first 8 bytes of SHA-256(file id ‖ 0 ‖ `tile/<k>` ‖ 0 ‖ its stored bytes),
 * `k` its index in the file's TileOffsets, the file id the SHA-256 of its header (which holds the
 * build's id and the tile index): two tiles swapped, a tile rewritten, or another file's tile at the
 * same offset do not pass. GDAL, QGIS and xarray read past the table: TIFF readers follow offsets
 * and never look at bytes nothing points to. Free of node:* imports: it is bundled for the browser.
 */
import { DIGEST_BYTES, objectDigest } from './chunk-digest.ts';

/** Ends the table in the file, so a build can find it again from the file alone. */
export const TILE_DIGESTS_MAGIC = 'CQTILES1';

/** The digest key of tile `index` (its place in TileOffsets). */
export function tileKey(index: number): string {
  return `tile/${index}`;
}

/** The digest of tile `index` of the file whose header has SHA-256 `fileId`. */
export function tileDigest(fileId: string, index: number, bytes: Uint8Array): Promise<Uint8Array> {
  return objectDigest(fileId, tileKey(index), bytes);
}

/** Bytes of the table of `tiles` digests, magic excluded. */
export function tileTableBytes(tiles: number): number {
  return tiles * DIGEST_BYTES;
}
