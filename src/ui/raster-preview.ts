/**
 * A map preview of one date of a raster layer: the engine Worker reads the
 * band whole (`EngineClient.layerGrid`, the same tiled reader as point and
 * polygon queries) and this paints it with a colour ramp. It reads the whole
 * file's tiles for that date (for a daily layer, ~5 MB), so it is only done on
 * request; point and polygon queries read single tiles.
 */
import type { LayerGrid } from '../rasters/raster-engine.ts';

// A perceptually even ramp (viridis-like), low to high.
const RAMP: Array<[number, number, number]> = [
  [68, 1, 84],
  [59, 82, 139],
  [33, 145, 140],
  [94, 201, 98],
  [253, 231, 37],
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

/** Paints `grid` with the ramp from its smallest to its largest value; empty pixels stay transparent. */
export function paintGrid(grid: LayerGrid): HTMLCanvasElement {
  const { width, height, values, min, max } = grid;
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
  return canvas;
}
