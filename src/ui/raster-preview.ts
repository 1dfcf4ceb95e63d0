/**
 * A map preview of one date of a raster layer: every tile of the layer's
 * file read through the engine's own tiled reader, one band decoded, scale
 * and offset applied, and painted with a colour ramp. It reads the whole
 * file once (for a daily layer, a year of tiles, ~5 MB), so it is only done
 * on request; point and polygon queries read single tiles.
 */
import { urlLocation } from '../dataset/location.ts';
import { openRasterFile } from '../rasters/raster-file.ts';
import type { RasterLayerEntry } from '../dataset/catalog.ts';

/** A painted preview with its legend range. */
export interface Preview {
  canvas: HTMLCanvasElement;
  bbox: [number, number, number, number];
  min: number;
  max: number;
  unit: string;
}

// A perceptually even ramp (viridis-like), low to high.
const RAMP: Array<[number, number, number]> = [
  [68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37],
];

/** The ramp's colour at t ∈ [0, 1]. */
export function rampColor(t: number): [number, number, number] {
  const x = Math.min(1, Math.max(0, t)) * (RAMP.length - 1);
  const i = Math.min(RAMP.length - 2, Math.floor(x));
  const f = x - i;
  const [a, b] = [RAMP[i]!, RAMP[i + 1]!];
  return [0, 1, 2].map((k) => Math.round(a[k]! + (b[k]! - a[k]!) * f)) as [number, number, number];
}

/** CSS gradient of the ramp, for the legend. */
export const RAMP_CSS = `linear-gradient(to right, ${RAMP.map((c) => `rgb(${c.join(',')})`).join(', ')})`;

/** Reads band `period` of `layer` (a period key, or '' for undated layers) and paints it. */
export async function renderPreview(layer: RasterLayerEntry, period: string, datasetUrl: string, signal?: AbortSignal): Promise<Preview> {
  const fileIndex = layer.files.findIndex((f) => f.periods.includes(period));
  if (fileIndex < 0) throw new Error(`The ${layer.dataType} ${layer.subDataType} layer has no ${period || 'undated'} band.`);
  const entry = layer.files[fileIndex]!;
  const band = entry.periods.indexOf(period);
  const file = await openRasterFile(urlLocation(datasetUrl).open(entry.path), {}, signal);
  const { width, height, tileWidth, tileHeight } = file;
  const values = new Float64Array(width * height).fill(NaN);
  for (let ty = 0; ty * tileHeight < height; ty++) {
    for (let tx = 0; tx * tileWidth < width; tx++) {
      const t = await file.readTile(tx, ty, [band], signal);
      for (let r = 0; r < t.height; r++) {
        for (let c = 0; c < t.width; c++) {
          const v = t.data[r * t.width + c]!;
          if (layer.nodata !== null && v === layer.nodata) continue;
          values[(t.y0 + r) * width + t.x0 + c] = v * layer.scale + layer.offset;
        }
      }
    }
  }
  await file.close();
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    if (Number.isNaN(v)) continue;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext('2d')!;
  const img = ctx.createImageData(width, height);
  const span = max > min ? max - min : 1;
  values.forEach((v, i) => {
    if (Number.isNaN(v)) return;
    const [r, g, b] = rampColor((v - min) / span);
    img.data.set([r, g, b, 255], i * 4);
  });
  ctx.putImageData(img, 0, 0);
  return { canvas, bbox: layer.bbox, min, max, unit: layer.unit };
}
