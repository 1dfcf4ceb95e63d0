/**
 * Elevation lookups on the bundled ETOPO5 grid (data-sources/), for demo
 * stations that have no elevation and for lapse-rate temperature fields.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { fromArrayBuffer } from 'geotiff';

/** Bilinear elevation sampler in metres (sea negative; clamped to the grid's edge pixels outside it). */
export type ElevationSampler = (lon: number, lat: number) => number;

/** Folder of the bundled public-domain inputs. */
export const DATA_SOURCES = fileURLToPath(new URL('../../data-sources/', import.meta.url));

/** Loads ETOPO5 for South Africa and returns a bilinear sampler. */
export async function loadElevation(file = `${DATA_SOURCES}za-elevation-etopo5.tif`): Promise<ElevationSampler> {
  const buf = await readFile(file);
  const tiff = await fromArrayBuffer(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  const image = await tiff.getImage();
  const [w, h] = [image.getWidth(), image.getHeight()];
  const [west, south, east, north] = image.getBoundingBox();
  const data = (await image.readRasters({ interleave: true })) as unknown as ArrayLike<number>;
  const dx = (east! - west!) / w;
  const dy = (north! - south!) / h;
  const at = (c: number, r: number) => {
    const cc = Math.min(w - 1, Math.max(0, c));
    const rr = Math.min(h - 1, Math.max(0, r));
    return data[rr * w + cc] ?? 0;
  };
  return (lon, lat) => {
    // Pixel-centre coordinates, so interpolation is between centres.
    const x = (lon - west!) / dx - 0.5;
    const y = (north! - lat) / dy - 0.5;
    const c0 = Math.floor(x);
    const r0 = Math.floor(y);
    const fx = x - c0;
    const fy = y - r0;
    return (
      at(c0, r0) * (1 - fx) * (1 - fy) +
      at(c0 + 1, r0) * fx * (1 - fy) +
      at(c0, r0 + 1) * (1 - fx) * fy +
      at(c0 + 1, r0 + 1) * fx * fy
    );
  };
}
