/**
 * What the catalog records of a `map` GeoTIFF so a reader can tell it is the build's own: its header
 * (the leading bytes up to the first tile, with their SHA-256: every directory of a COG) and its tile
 * digests (a table the build appends after GDAL's last byte, src/rasters/tile-digests.ts; the full
 * grid's tiles, then each overview's). A build appends the table once,
 * to a file of its own staging before the file is listed; every catalog write reads both back from
 * the file and checks each tile against its digest, so a damaged copy is never listed as good.
 */
import { createHash } from 'node:crypto';
import { type FileHandle, open } from 'node:fs/promises';
import { fromFile, type GeoTIFFImage } from 'geotiff';
import { tiledImages } from '../rasters/raster-file.ts';
import type { CatalogFile } from '../dataset/catalog.ts';
import { DIGEST_BYTES } from '../rasters/chunk-digest.ts';
import { TILE_DIGESTS_MAGIC, tileDigest, tileTableBytes } from '../rasters/tile-digests.ts';
import { BuildError } from './build-error.ts';

/** Where a TIFF's header ends and its first image's tiles lie. */
interface TiffLayout {
  /** Bytes before the first tile or strip of any image, or null when a directory follows data. */
  headerBytes: number | null;
  /** The tiles of the first image and its overviews (or the first image's strips): [offset, byte count]. */
  tiles: Array<[number, number]>;
  /** The end of the last byte any tile or strip holds. */
  dataEnd: number;
}

async function tiffLayout(path: string): Promise<TiffLayout> {
  const tiff = await fromFile(path);
  try {
    let first = Infinity;
    let dataEnd = 0;
    const count = await tiff.getImageCount();
    for (let i = 0; i < count; i++) {
      for (const [o, n] of await tilesOf(await tiff.getImage(i))) {
        if (o > 0 && o < first) first = o;
        dataEnd = Math.max(dataEnd, o + n);
      }
    }
    // The digests number the tiles of the images the reader reads, in its order (raster-file.ts).
    const images = await tiledImages(tiff);
    const tiles = images[0]!.isTiled ? (await Promise.all(images.map(tilesOf))).flat() : await tilesOf(images[0]!);
    const headerBytes = Number.isFinite(first) && tiff.firstIFDOffset < first ? first : null;
    return { headerBytes, tiles, dataEnd };
  } finally {
    tiff.close();
  }
}

/** An image's tiles (or strips): [offset, byte count] in TileOffsets order. */
async function tilesOf(image: GeoTIFFImage): Promise<Array<[number, number]>> {
  const [offsetsTag, countsTag] = image.isTiled
    ? (['TileOffsets', 'TileByteCounts'] as const)
    : (['StripOffsets', 'StripByteCounts'] as const);
  const offsets = (await image.fileDirectory.loadValue(offsetsTag)) as ArrayLike<number | bigint>;
  const counts = (await image.fileDirectory.loadValue(countsTag)) as ArrayLike<number | bigint>;
  return Array.from(offsets, (o, k): [number, number] => [Number(o), Number(counts[k] ?? 0)]);
}

async function readAt(fh: FileHandle, offset: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fh.read(buf, 0, length, offset);
  return buf.subarray(0, bytesRead);
}

/** Every tile's digest, in TileOffsets order (a tile of no bytes gets zeros: nothing is read for it). */
async function digestsOf(fh: FileHandle, fileId: string, tiles: TiffLayout['tiles']): Promise<Buffer> {
  const table = Buffer.alloc(tileTableBytes(tiles.length));
  for (let k = 0; k < tiles.length; k++) {
    const [offset, length] = tiles[k]!;
    if (length === 0) continue;
    table.set(await tileDigest(fileId, k, await readAt(fh, offset, length)), k * DIGEST_BYTES);
  }
  return table;
}

const magic = Buffer.from(TILE_DIGESTS_MAGIC, 'latin1');

/**
 * Appends the tile digests table to GeoTIFF `path`, which GDAL has just written and nothing lists
 * yet. Does nothing to a file that already ends with one.
 */
export async function appendTileDigests(path: string): Promise<void> {
  const layout = await tiffLayout(path);
  if (layout.headerBytes === null) return;
  const fh = await open(path, 'r+');
  try {
    const { size } = await fh.stat();
    if (size >= magic.length && (await readAt(fh, size - magic.length, magic.length)).equals(magic)) return;
    const fileId = createHash('sha256')
      .update(await readAt(fh, 0, layout.headerBytes))
      .digest('hex');
    const table = await digestsOf(fh, fileId, layout.tiles);
    await fh.write(Buffer.concat([table, magic]), 0, table.length + magic.length, size);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * The header and tile table of GeoTIFF `path` as the catalog records them. The table is checked
 * against the tiles it digests; a file without one (built before tiles had digests, or by hand) has
 * its header only, and a file whose directory follows its data has neither (the reader then checks
 * its size alone). `listed` names the file in errors.
 */
export async function mapFileClaims(path: string, listed: string): Promise<Pick<CatalogFile, 'header' | 'tiles'>> {
  const layout = await tiffLayout(path);
  if (layout.headerBytes === null) return {};
  const fh = await open(path, 'r');
  try {
    const head = await readAt(fh, 0, layout.headerBytes);
    const header = { bytes: layout.headerBytes, sha256: createHash('sha256').update(head).digest('hex') };
    const { size } = await fh.stat();
    if (!(size >= magic.length && (await readAt(fh, size - magic.length, magic.length)).equals(magic))) {
      return { header };
    }
    const bytes = tileTableBytes(layout.tiles.length);
    const offset = size - magic.length - bytes;
    const damaged = (why: string) =>
      new BuildError(
        'unreadable_input',
        `${listed} is damaged: ${why}. Rebuild its layer, or copy it again from where it was built.`,
        { file: listed },
      );
    if (offset < layout.dataEnd) throw damaged('its tile digests overlap its tiles');
    const table = await readAt(fh, offset, bytes);
    const expected = await digestsOf(fh, header.sha256, layout.tiles);
    if (!table.equals(expected)) throw damaged('a tile does not match the digest its build recorded for it');
    return { header, tiles: { offset, bytes, sha256: createHash('sha256').update(table).digest('hex') } };
  } finally {
    await fh.close();
  }
}
