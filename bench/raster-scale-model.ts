/**
 * The real-size climate layer of the raster scale bench: daily mean air
 * temperature on the grid the service this project replaces uses for the
 * Western Cape, 0.0025° (≈ 250 m), 1,800 × 1,150 px, for as many years as
 * asked. Seeded, so every run and machine gets the same values.
 *
 * What makes it realistic enough to measure storage with (constant or
 * random-only values compress unrealistically well or badly):
 * - smooth spatial fields: the demo's temperature model (src/builder/
 *   demo-weather.ts: latitude, distance to the sea, lapse rate on
 *   ETOPO5 elevation), with a seasonal cycle and day-to-day weather (five
 *   spatial patterns with AR(1) amplitudes);
 * - terrain texture ETOPO5's 5′ cells do not have: three octaves of value
 *   noise (wavelengths 64, 16 and 4 px; 120, 60 and 30 m) added to the
 *   elevation, which the lapse rate turns into ≈ 1 °C of fixed texture;
 * - pixel noise: a Gaussian draw of σ 0.1 °C per pixel and day (one
 *   stored step), what interpolation and sensor error leave in a real grid;
 * - a sea mask (ETOPO5 ≤ 0 m): NaN, nodata in the built layer.
 */
import { landSites, staticFields, type DemoGrid, type StaticFields } from '../src/builder/demo-rasters-model.ts';
import { DailyTemperature, SiteClimates } from '../src/builder/demo-weather.ts';
import { Random } from '../src/builder/prng.ts';
import { loadElevation } from '../src/builder/elevation.ts';

/** The service's Western Cape grid: 0.0025°, 1,800 × 1,150 px from 17.8° E, 31.9° S (inside the tc extent). */
export const REAL_SIZE_GRID: DemoGrid = { west: 17.8, north: -31.9, res: 0.0025, width: 1800, height: 1150 };

/** Smooth hash noise in [−1, 1] at integer lattice points, bilinear between them. */
function valueNoise(seed: number, x: number, y: number): number {
  const lattice = (i: number, j: number) => {
    let h = (i * 374_761_393 + j * 668_265_263 + seed * 2_147_483_647) | 0;
    h = Math.imul(h ^ (h >>> 13), 1_274_126_177);
    return ((h ^ (h >>> 16)) & 0xffff) / 32_767.5 - 1;
  };
  const i = Math.floor(x);
  const j = Math.floor(y);
  const fx = x - i;
  const fy = y - j;
  const sx = fx * fx * (3 - 2 * fx);
  const sy = fy * fy * (3 - 2 * fy);
  const top = lattice(i, j) * (1 - sx) + lattice(i + 1, j) * sx;
  const bottom = lattice(i, j + 1) * (1 - sx) + lattice(i + 1, j + 1) * sx;
  return top * (1 - sy) + bottom * sy;
}

/** The static fields of {@link REAL_SIZE_GRID}: ETOPO5 elevation plus the terrain texture. */
export async function realSizeFields(grid: DemoGrid = REAL_SIZE_GRID, seed = 41): Promise<StaticFields> {
  const elevationAt = await loadElevation();
  const f = staticFields(grid, elevationAt);
  const octaves: Array<[number, number]> = [
    [64, 120],
    [16, 60],
    [4, 30],
  ];
  for (const p of f.landIndex) {
    const c = p % grid.width;
    const r = (p - c) / grid.width;
    let texture = 0;
    octaves.forEach(([wavelength, metres], k) => {
      texture += metres * valueNoise(seed + k, c / wavelength, r / wavelength);
    });
    f.elevation[p] = Math.max(1, f.elevation[p]! + texture);
  }
  return f;
}

/**
 * Daily mean temperature (°C, rounded to 0.1; NaN at sea), day after day from
 * `start` (UTC midnight). The weather runs continuously, so consecutive years
 * drawn from one instance join up.
 */
export class RealSizeTemperature {
  private readonly model: DailyTemperature;
  private readonly noise: Random;

  constructor(
    readonly fields: StaticFields,
    seed = 20210101,
  ) {
    this.model = new DailyTemperature(new SiteClimates(landSites(fields)), seed);
    this.noise = new Random(seed ^ 0x5eed);
  }

  /** Advances one day and writes that day's grid into `out` (width × height, row-major). */
  day(date: Date, out: Float32Array): void {
    this.model.step(date);
    out.fill(Number.NaN);
    const { landIndex } = this.fields;
    const { tmin10, tmax10 } = this.model;
    for (let k = 0; k < landIndex.length; k++) {
      const tenths = Math.round((tmin10[k]! + tmax10[k]!) / 2 + this.noise.gauss());
      out[landIndex[k]!] = tenths / 10;
    }
  }
}

/** The UTC dates of `year`, 1 January to 31 December. */
export function daysOf(year: number): Date[] {
  const out: Date[] = [];
  for (let t = Date.UTC(year, 0, 1); t < Date.UTC(year + 1, 0, 1); t += 86_400_000) out.push(new Date(t));
  return out;
}
