/**
 * One opened GeoTIFF of a `map` raster layer, seen through the tile interface
 * every layout's reader gives the engine (raster-reader.ts).
 * Opening reads the header, the first IFD and the whole tile offset and
 * byte-count arrays once (a build's file: its overviews' too, all in the
 * header); after that a tile costs exactly one range read (through the block
 * cache) and is decoded by geotiff.js with every requested band in it,
 * pixel-interleaved.
 */
import { GeoTIFF, type GeoTIFFImage, getDecoder, type TypedArray } from 'geotiff';
import type { RasterFile } from './raster-reader.ts';
import { ClimateQueryError } from '../contract/errors.ts';
import type { ByteSource } from '../io/byte-source.ts';
import { BlockCachedSource, type BlockCacheOptions, type Slice } from './cached-source.ts';
import { DIGEST_BYTES, sameDigest } from './chunk-digest.ts';
import { tileDigest } from './tile-digests.ts';
import { asSourceError } from '../io/byte-source.ts';
import { sha256Hex } from '../io/digest.ts';

/** What the catalog says of a file, checked as it is opened. */
export interface RasterFileClaims {
  /** Its leading bytes and their SHA-256 (catalog `files[].header`). */
  header?: { bytes: number; sha256: string } | undefined;
  /** Where its tile digests lie and their SHA-256 (catalog `files[].tiles`; src/rasters/tile-digests.ts). */
  tiles?: { offset: number; bytes: number; sha256: string } | undefined;
  /** Its grid and how many dates it holds at least (the layer's). */
  grid?: { width: number; height: number; bands: number };
}

/**
 * Opens `source` as a tiled GeoTIFF and preloads its tile index. With a
 * `header` claim, the file's leading bytes are checked first: the same blocks
 * geotiff.js reads next, so the check costs no request; with `tiles`, the
 * table of tile digests is read in the same round and each tile is checked
 * against it before it is decoded; with `grid`, its shape is, before its tile
 * index is loaded.
 */
export async function openRasterFile(
  source: ByteSource,
  cache: BlockCacheOptions = {},
  signal?: AbortSignal,
  claims: RasterFileClaims = {},
): Promise<RasterFile> {
  const { header, tiles, grid: expected } = claims;
  const cached = new BlockCachedSource(source, cache);
  const url = source.url;
  try {
    let table: Uint8Array | null = null;
    if (header) {
      const [bytes, digests] = await cached.fetch(
        [{ offset: 0, length: header.bytes }, ...(tiles ? [{ offset: tiles.offset, length: tiles.bytes }] : [])],
        signal,
      );
      if ((await sha256Hex(new Uint8Array(bytes!))) !== header.sha256) {
        throw new ClimateQueryError(
          'dataset_changed',
          `${url} is not the file the catalog records: the SHA-256 of its first ${header.bytes} bytes (header and tile index) differs, so it is another version. If a redeploy is under way, ask again in a moment; otherwise copy the dataset to the host again, whole.`,
        );
      }
      if (tiles) {
        table = new Uint8Array(digests!);
        if ((await sha256Hex(table)) !== tiles.sha256) {
          // Its blocks may be the host's passing fault: not kept.
          cached.dropRange({ offset: tiles.offset, length: tiles.bytes });
          throw new ClimateQueryError(
            'dataset_changed',
            `${url} is not the file the catalog records: the SHA-256 of its tile digests differs. If a redeploy is under way, ask again in a moment; otherwise copy the dataset to the host again, whole.`,
          );
        }
      }
    }
    const tiff = await GeoTIFF.fromSource(cached as unknown as Parameters<typeof GeoTIFF.fromSource>[0], {}, signal);
    const image = await tiff.getImage(0);
    warmDecoder(Number(image.fileDirectory.getValue('Compression') ?? 1));
    if (!image.isTiled) {
      throw new ClimateQueryError(
        'dataset_unavailable',
        `${url} is not tiled; rebuild the layer with \`climate-query build\` (tiled, pixel-interleaved GeoTIFF).`,
      );
    }
    const width = image.getWidth();
    const height = image.getHeight();
    // What the file claims is bounded before anything is sized by it: a 1 MB file of one DEFLATE tile
    // claiming 16,384² Float32 pixels made a point query decode 1 GiB (3.25 GB RSS).
    if (
      expected &&
      (width !== expected.width || height !== expected.height || image.getSamplesPerPixel() < expected.bands)
    ) {
      throw new ClimateQueryError(
        'dataset_unavailable',
        `${url} is ${width}×${height} with ${image.getSamplesPerPixel()} bands, but catalog.json says ${expected.width}×${expected.height} with ${expected.bands}; rebuild the dataset.`,
      );
    }
    checkTileBytes(url, image);
    // A build's file lists every image's tiles in its digest table (overviews after the full grid):
    // their directories lie in the header just checked, so finding them costs no request.
    const images = table ? await tiledImages(tiff) : [image];
    const indexes = await Promise.all(images.map(tileIndex));
    if (table) cached.check = tileCheck(url, header!.sha256, table, indexes);
    const [main, ...overviews] = images.map((im) => tiledImage(url, im, cached));
    return { ...main!, overviews, bandRange: (band) => bandRange(image, band), close: () => cached.close() };
  } catch (err) {
    await cached.close().catch(() => undefined);
    if (err instanceof ClimateQueryError) throw err;
    if (signal?.aborted) throw asSourceError(err, url, signal);
    const detail = err instanceof Error ? err.message : String(err);
    throw new ClimateQueryError('dataset_unavailable', `${url} could not be opened as a GeoTIFF: ${detail}`, {
      cause: err,
    });
  }
}

/** Errors of tiles whose bytes are not their build's: read once more, then refused. */
const notTheirs = new WeakSet<object>();

/** Most overview images a file may hold: 2¹⁶ times smaller than any grid a layer may have. */
const MAX_OVERVIEWS = 16;

/** Bounds what one decoded tile of `image` would hold before anything is sized by it. */
function checkTileBytes(url: string, image: GeoTIFFImage): void {
  const tileBytes =
    image.getTileWidth() * image.getTileHeight() * image.getSamplesPerPixel() * Math.ceil(image.getBitsPerSample() / 8);
  if (!(tileBytes > 0 && tileBytes <= MAX_DECODED_TILE_BYTES)) {
    throw new ClimateQueryError(
      'dataset_unavailable',
      `${url} claims tiles of ${image.getTileWidth()}×${image.getTileHeight()} px × ${image.getSamplesPerPixel()} bands (${tileBytes} bytes decoded), more than the ${MAX_DECODED_TILE_BYTES} a reader decodes; the file is damaged or not one \`climate-query build\` wrote.`,
    );
  }
}

/**
 * The file's first image and its overviews, in the order its table of tile digests numbers their
 * tiles (the build's, map-file-claims.ts, and the reader's).
 */
export async function tiledImages(tiff: GeoTIFF): Promise<GeoTIFFImage[]> {
  const main = await tiff.getImage(0);
  return [main, ...(await overviewImages(tiff, main))];
}

/**
 * The reduced-resolution images (TIFF NewSubfileType 1) that follow `main` in the file, largest
 * first, each tiled with `main`'s bands and no larger than it. The directory chain is walked at most
 * {@link MAX_OVERVIEWS} steps, so a chain that loops back ends there.
 */
async function overviewImages(tiff: GeoTIFF, main: GeoTIFFImage): Promise<GeoTIFFImage[]> {
  const out: GeoTIFFImage[] = [];
  let previous = main;
  for (let i = 1; i <= MAX_OVERVIEWS && previous.fileDirectory.nextIFDByteOffset !== 0; i++) {
    const image = await tiff.getImage(i);
    previous = image;
    const subfile = Number(image.fileDirectory.getValue('NewSubfileType') ?? 0);
    if ((subfile & 1) === 0 || (subfile & 4) !== 0) continue;
    if (
      !image.isTiled ||
      image.getSamplesPerPixel() !== main.getSamplesPerPixel() ||
      image.getWidth() > main.getWidth() ||
      image.getHeight() > main.getHeight()
    ) {
      continue;
    }
    checkTileBytes(`overview ${i}`, image);
    out.push(image);
  }
  return out;
}

type TileIndex = [ArrayLike<number | bigint>, ArrayLike<number | bigint>];

/** An image's whole tile index (offsets, byte counts), loaded so no tile waits for its entry. */
async function tileIndex(image: GeoTIFFImage): Promise<TileIndex> {
  return (await Promise.all([
    image.fileDirectory.loadValue('TileOffsets'),
    image.fileDirectory.loadValue('TileByteCounts'),
  ])) as TileIndex;
}

/** Band `band`'s (0-based) smallest and largest value as GDAL recorded them in the file, if it did. */
async function bandRange(image: GeoTIFFImage, band: number): Promise<[number, number] | null> {
  const md = (await image.getGDALMetadata(band)) as Record<string, unknown> | null;
  const lo = Number(md?.STATISTICS_MINIMUM);
  const hi = Number(md?.STATISTICS_MAXIMUM);
  return md && Number.isFinite(lo) && Number.isFinite(hi) && lo <= hi ? [lo, hi] : null;
}

/** One tiled image of the file (the full grid or an overview) as a {@link RasterFile} without close. */
function tiledImage(url: string, image: GeoTIFFImage, cached: BlockCachedSource): RasterFile {
  const width = image.getWidth();
  const height = image.getHeight();
  const tileWidth = image.getTileWidth();
  const tileHeight = image.getTileHeight();
  const readWindow: NonNullable<RasterFile['readWindow']> = async (x0, y0, x1, y1, bands, sig) => {
    const decode = async (): Promise<TypedArray> =>
      (await image.readRasters({
        window: [x0, y0, x1, y1],
        samples: [...bands],
        interleave: true,
        signal: sig,
      })) as TypedArray;
    const aborted = (err: unknown) =>
      err instanceof ClimateQueryError || sig?.aborted || (err as { name?: unknown })?.name === 'AbortError';
    let data: TypedArray | undefined;
    for (let attempt = 0; data === undefined; attempt++) {
      try {
        data = await decode();
      } catch (err) {
        if (sig?.aborted) throw asSourceError(err, url, sig);
        // A tile that is not the build's had its blocks dropped as it failed: a fresh read may heal. Once.
        if (notTheirs.has(err as object) && attempt === 0) continue;
        if (aborted(err)) throw asSourceError(err, url, sig);
        // Bytes that would not decode may be a host's fault (a cut or shifted answer): they must
        // not stay cached, and a fresh read may heal. Once; a second failure is the file's own.
        cached.dropBlocks();
        if (attempt > 0) {
          const detail = err instanceof Error ? err.message : String(err);
          throw new ClimateQueryError(
            'dataset_unavailable',
            `${url}: the tile at ${x0},${y0} px could not be decoded (${detail}); the file is damaged, or the host sends other bytes than asked for.`,
            { cause: err },
          );
        }
      }
    }
    return { x0, y0, width: x1 - x0, height: y1 - y0, samples: bands.length, data };
  };
  return {
    url,
    width,
    height,
    tileWidth,
    tileHeight,
    bands: image.getSamplesPerPixel(),
    stats: cached.stats,
    readTile(tx, ty, bands, sig) {
      const x0 = tx * tileWidth;
      const y0 = ty * tileHeight;
      return readWindow(x0, y0, Math.min(x0 + tileWidth, width), Math.min(y0 + tileHeight, height), bands, sig);
    },
    readWindow,
    // An overview shares its file's source: only the file's own close releases it.
    close: async () => undefined,
  };
}

/**
 * The block cache's check of a file with a table of tile digests: a slice that is one of the
 * file's tiles (its offset and byte count) must match its digest; anything else (the header, the
 * table) was checked whole as the file was opened.
 */
function tileCheck(
  url: string,
  fileId: string,
  table: Uint8Array,
  indexes: readonly TileIndex[],
): (slice: Slice, bytes: Uint8Array) => Promise<void> {
  // The table numbers the tiles of every image in turn, the full grid's first (map-file-claims.ts).
  const offsets = indexes.flatMap(([o]) => Array.from(o, Number));
  const counts = indexes.flatMap(([, c]) => Array.from(c, Number));
  if (table.length !== offsets.length * DIGEST_BYTES) {
    throw new ClimateQueryError(
      'dataset_unavailable',
      `${url} has ${offsets.length} tiles, but its table of tile digests holds ${table.length / DIGEST_BYTES}; the file is damaged or not one \`climate-query build\` wrote.`,
    );
  }
  const tileAt = new Map<number, number>();
  for (let k = 0; k < offsets.length; k++) if (counts[k]! > 0) tileAt.set(offsets[k]!, k);
  return async ({ offset, length }, bytes) => {
    const k = tileAt.get(offset);
    if (k === undefined || counts[k] !== length) return;
    const want = table.subarray(k * DIGEST_BYTES, (k + 1) * DIGEST_BYTES);
    if (sameDigest(await tileDigest(fileId, k, bytes), want)) return;
    const error = new ClimateQueryError(
      'dataset_unavailable',
      `${url}: tile ${k} is not the tile its build wrote: its bytes do not match the digest the file records for it (another tile's bytes, or rewritten). Nothing was answered from it; copy the dataset to the host again.`,
    );
    notTheirs.add(error);
    throw error;
  };
}

/**
 * Most bytes one decoded tile may hold: a build's tiles hold at most 64 KiB (raster-tiling.ts), so a
 * file claiming more was not written by one, and 4 MiB bounds what a hostile file costs per tile.
 */
export const MAX_DECODED_TILE_BYTES = 4 * 1024 * 1024;

/** TIFF compression code of DEFLATE, which `climate-query build` writes every layer with. */
export const DEFLATE = 8;

/**
 * Starts loading geotiff.js's decoder for a TIFF compression code. geotiff.js
 * imports it on a file's first read, and in a bundle that is two round trips
 * (the decoder's chunk, then the chunks it imports: pako for DEFLATE) before
 * the first tile is asked for; started early, they overlap the reads before.
 * The first read awaits the same import. An unknown code is left for that
 * read to report.
 */
export function warmDecoder(compression: number): void {
  getDecoder(compression, {} as Parameters<typeof getDecoder>[1]).catch(() => undefined);
}
