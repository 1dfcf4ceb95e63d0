/**
 * The synthetic climate behind the demo raster layers. Nothing here is
 * observed data: fields are built from real elevation (ETOPO5, bundled in
 * data-sources/), latitude, distance from the sea and season, with
 * deterministic pseudo-random weather, so every build gives the same
 * bytes and the layers agree with each other (gdd, chill and frost are
 * computed from the very daily temperatures the temp layers hold).
 * Constants are chosen to land near real Western Cape / South African
 * climatology (Cape Town ≈ 17.5 °C annual mean, Sutherland July minima
 * below freezing, Karoo January maxima above 30 °C, winter rain in the
 * south-west, summer rain in the north-east); docs/layers.md lists them.
 */
import { mulberry32 } from './prng.ts';

/** Bundled elevation file (public domain, see data-sources/README.md). */

/** A demo grid: north-up lon/lat, pixel (c, r) centred at (west + (c + ½)·res, north − (r + ½)·res). */
export interface DemoGrid {
  west: number;
  north: number;
  res: number;
  width: number;
  height: number;
}

/** Builds the grid covering `bbox` at `res`, snapped outward from west/north. */
export function gridFor(bbox: [number, number, number, number], res: number): DemoGrid {
  const [w, s, e, n] = bbox;
  return { west: w, north: n, res, width: Math.ceil((e - w) / res - 1e-9), height: Math.ceil((n - s) / res - 1e-9) };
}

/** Per-pixel static fields of a grid. */
export interface StaticFields {
  grid: DemoGrid;
  lon: Float64Array;
  lat: Float64Array;
  /** Metres; negative at sea. */
  elevation: Float32Array;
  land: Uint8Array;
  /** Kilometres to the nearest sea pixel of the grid (0 at sea). */
  coastKm: Float32Array;
  /** Indices of land pixels, the only ones that get values. */
  landIndex: Int32Array;
}

/** Elevation, land mask and distance to the sea on `grid`. */
export function staticFields(grid: DemoGrid, elevationAt: (lon: number, lat: number) => number): StaticFields {
  const n = grid.width * grid.height;
  const lon = new Float64Array(n);
  const lat = new Float64Array(n);
  const elevation = new Float32Array(n);
  const land = new Uint8Array(n);
  for (let r = 0; r < grid.height; r++) {
    for (let c = 0; c < grid.width; c++) {
      const i = r * grid.width + c;
      lon[i] = grid.west + (c + 0.5) * grid.res;
      lat[i] = grid.north - (r + 0.5) * grid.res;
      elevation[i] = elevationAt(lon[i]!, lat[i]!);
      land[i] = elevation[i]! > 0 ? 1 : 0;
    }
  }
  const coastKm = chamferDistance(grid, land, lat);
  const landIndex = Int32Array.from({ length: n }, (_, i) => i).filter((i) => land[i] === 1);
  return { grid, lon, lat, elevation, land, coastKm, landIndex };
}

/** Two-pass 8-neighbour chamfer distance (km) from every pixel to the nearest sea pixel. */
function chamferDistance(grid: DemoGrid, land: Uint8Array, lat: Float64Array): Float32Array {
  const { width: w, height: h } = grid;
  const d = new Float32Array(w * h).map((_, i) => (land[i] ? 1e9 : 0));
  const ky = grid.res * 110.57;
  const relax = (i: number, j: number, step: number) => {
    const v = d[j]! + step;
    if (v < d[i]!) d[i] = v;
  };
  for (let r = 0; r < h; r++) {
    const kx = grid.res * 111.32 * Math.cos((lat[r * w]! * Math.PI) / 180);
    const kd = Math.hypot(kx, ky);
    for (let c = 0; c < w; c++) {
      const i = r * w + c;
      if (c > 0) relax(i, i - 1, kx);
      if (r > 0) {
        relax(i, i - w, ky);
        if (c > 0) relax(i, i - w - 1, kd);
        if (c < w - 1) relax(i, i - w + 1, kd);
      }
    }
  }
  for (let r = h - 1; r >= 0; r--) {
    const kx = grid.res * 111.32 * Math.cos((lat[r * w]! * Math.PI) / 180);
    const kd = Math.hypot(kx, ky);
    for (let c = w - 1; c >= 0; c--) {
      const i = r * w + c;
      if (c < w - 1) relax(i, i + 1, kx);
      if (r < h - 1) {
        relax(i, i + w, ky);
        if (c < w - 1) relax(i, i + w + 1, kd);
        if (c > 0) relax(i, i + w - 1, kd);
      }
    }
  }
  return d;
}

/** Deterministic PRNG (mulberry32) with a Gaussian draw. */
export class Random {
  private spare: number | null = null;
  /** Uniform in [0, 1). */
  readonly next: () => number;

  constructor(seed: number) {
    this.next = mulberry32(seed);
  }

  /** Standard normal (Box–Muller). */
  gauss(): number {
    if (this.spare !== null) {
      const s = this.spare;
      this.spare = null;
      return s;
    }
    const u = Math.max(this.next(), 1e-12);
    const v = this.next();
    const m = Math.sqrt(-2 * Math.log(u));
    this.spare = m * Math.sin(2 * Math.PI * v);
    return m * Math.cos(2 * Math.PI * v);
  }
}

/** Day of year 0..365 of a UTC date. */
function dayOfYear(date: Date): number {
  return Math.round((date.getTime() - Date.UTC(date.getUTCFullYear(), 0, 1)) / 86_400_000);
}

/**
 * Daily minimum and maximum temperature on the land pixels of a grid, day
 * after day. Climatology: annual mean 18.6 °C at the coast at 30 °S,
 * −0.3 °C per degree further south, +2 °C far inland, −5 °C per km of
 * elevation; seasonal half-range 3.6 °C at the coast to 7 °C inland,
 * warmest about 24 January; diurnal range 7.5 °C at the coast to 16 °C
 * inland (+1.2 °C per km, ±12 % with the season). Weather: five smooth
 * spatial patterns (uniform, east–west, north–south, two waves) with AR(1)
 * amplitudes (lag-one correlation 0.75; 2 °C for the uniform one, 0.7 °C
 * for the others), stronger inland, plus an AR(1) anomaly of the diurnal
 * range (cloudy and clear spells). Values are rounded to 0.1 °C, the
 * precision the layers store, before anything is derived from them.
 */
export class DailyTemperature {
  /** Tmin and Tmax of the current day in tenths of °C, per land pixel (same order as `fields.landIndex`). */
  readonly tmin10: Int16Array;
  readonly tmax10: Int16Array;
  private readonly base: Float32Array;
  private readonly amp: Float32Array;
  private readonly dtr: Float32Array;
  private readonly inland: Float32Array;
  private readonly patterns: Float32Array[];
  private readonly alpha = new Float64Array(5);
  private dtrAnom = 0;
  private readonly rng: Random;
  private static readonly SIGMA = [2.0, 0.7, 0.7, 0.7, 0.7];
  private static readonly RHO = 0.75;

  constructor(
    readonly fields: StaticFields,
    seed = 20240101,
  ) {
    const n = fields.landIndex.length;
    this.tmin10 = new Int16Array(n);
    this.tmax10 = new Int16Array(n);
    this.base = new Float32Array(n);
    this.amp = new Float32Array(n);
    this.dtr = new Float32Array(n);
    this.inland = new Float32Array(n);
    this.patterns = Array.from({ length: 5 }, () => new Float32Array(n));
    fields.landIndex.forEach((p, k) => {
      const lat = fields.lat[p]!;
      const lon = fields.lon[p]!;
      const z = Math.max(0, fields.elevation[p]!);
      const d = fields.coastKm[p]!;
      const inland = 1 - Math.exp(-d / 60);
      this.inland[k] = inland;
      this.base[k] = 18.6 - 0.3 * (Math.abs(lat) - 30) + 2.0 * inland - (5.0 * z) / 1000;
      this.amp[k] = 3.6 + 3.4 * inland;
      this.dtr[k] = 7.5 + 8.5 * (1 - Math.exp(-d / 45)) + (1.2 * z) / 1000;
      this.patterns[0]![k] = 1;
      this.patterns[1]![k] = (lon - 21) / 4;
      this.patterns[2]![k] = (lat + 32) / 3;
      this.patterns[3]![k] = Math.sin(0.9 * lon + 0.4 * lat);
      this.patterns[4]![k] = Math.cos(0.5 * lon - 1.1 * lat);
    });
    this.rng = new Random(seed);
    // Start the weather from its stationary distribution, so the first days are not special.
    for (let k = 0; k < 5; k++) this.alpha[k] = DailyTemperature.SIGMA[k]! * this.rng.gauss();
    this.dtrAnom = 1.5 * this.rng.gauss();
  }

  /** Advances the weather one day and fills `tmin10`/`tmax10` for `date` (UTC midnight). */
  step(date: Date): void {
    const rho = DailyTemperature.RHO;
    const innov = Math.sqrt(1 - rho * rho);
    for (let k = 0; k < 5; k++)
      this.alpha[k] = rho * this.alpha[k]! + DailyTemperature.SIGMA[k]! * innov * this.rng.gauss();
    this.dtrAnom = 0.6 * this.dtrAnom + 1.5 * Math.sqrt(1 - 0.36) * this.rng.gauss();
    const season = Math.cos((2 * Math.PI * (dayOfYear(date) - 24)) / 365.25);
    const [a0, a1, a2, a3, a4] = this.alpha as unknown as [number, number, number, number, number];
    const [p0, p1, p2, p3, p4] = this.patterns as [
      Float32Array,
      Float32Array,
      Float32Array,
      Float32Array,
      Float32Array,
    ];
    const dtrSeason = 1 + 0.12 * season;
    for (let k = 0; k < this.base.length; k++) {
      const inland = this.inland[k]!;
      const anomaly = (0.75 + 0.5 * inland) * (a0 * p0[k]! + a1 * p1[k]! + a2 * p2[k]! + a3 * p3[k]! + a4 * p4[k]!);
      const mean = this.base[k]! + this.amp[k]! * season + anomaly;
      const range = Math.max(1, this.dtr[k]! * dtrSeason + this.dtrAnom * (0.6 + 0.6 * inland));
      this.tmin10[k] = Math.round((mean - range / 2) * 10);
      this.tmax10[k] = Math.round((mean + range / 2) * 10);
    }
  }
}

/** Median monthly rainfall (mm) on the land pixels of an sa grid, months 1..12. */
export function monthlyMedianRain(f: StaticFields): Float32Array[] {
  const out = Array.from({ length: 12 }, () => new Float32Array(f.landIndex.length));
  f.landIndex.forEach((p, k) => {
    const lon = f.lon[p]!;
    const lat = f.lat[p]!;
    const z = Math.max(0, f.elevation[p]!);
    const d = f.coastKm[p]!;
    // Annual total: dry west, wet east, the Cape Fold mountains, the south coast, orographic lift.
    let annual = 80 + 820 / (1 + Math.exp(-(lon - 26) / 1.6));
    annual += 650 * Math.exp(-((lon - 19.2) ** 2 / 0.8 + (lat + 33.9) ** 2 / 0.35));
    annual += 250 * Math.exp(-d / 40) * (lon > 20.5 ? 1 : 0.3);
    annual += 0.35 * Math.max(0, z - 800);
    annual -= 60 * Math.exp(-((lon - 19) ** 2 + (lat + 28) ** 2) / 4);
    annual = Math.max(40, annual);
    // Share of winter rain: 1 in the south-west, 0 in the north-east, mixed along the south coast.
    let winter = 1 / (1 + Math.exp((lon - 20.3 + 0.35 * (lat + 33.5)) / 0.7));
    winter += (0.45 - winter) * Math.exp(-d / 50) * (1 / (1 + Math.exp(-(lon - 20.5) * 2)));
    for (let m = 1; m <= 12; m++) {
      const shapeWinter = 1 + 0.95 * Math.cos((2 * Math.PI * (m - 6.5)) / 12);
      const shapeSummer = 1 + 0.95 * Math.cos((2 * Math.PI * (m - 1)) / 12);
      const mean = (annual * (winter * shapeWinter + (1 - winter) * shapeSummer)) / 12;
      // Monthly rain is skewed: the median sits below the mean, more so in dry months.
      out[m - 1]![k] = mean * 0.85 * (1 - 0.35 * Math.exp(-mean / 15));
    }
  });
  return out;
}

/** Mean wind speed (m/s) at `heights` metres on the land pixels of an sa grid. */
export function windSpeed(f: StaticFields, heights: number[]): Float32Array[] {
  const smooth = boxBlur(f.elevation, f.grid, Math.max(1, Math.round(0.4 / f.grid.res)));
  const out = heights.map(() => new Float32Array(f.landIndex.length));
  f.landIndex.forEach((p, k) => {
    const lon = f.lon[p]!;
    const lat = f.lat[p]!;
    const z = Math.max(0, f.elevation[p]!);
    const d = f.coastKm[p]!;
    const ridge = Math.min(2, Math.max(-1, (z - Math.max(0, smooth[p]!)) / 250));
    // At 20 m: sea breeze and trade winds near the coast, exposed ridges, the high plateau, the Cape Peninsula.
    const v20 =
      3.6 +
      2.4 * Math.exp(-d / 25) +
      1.2 * ridge +
      (0.4 * z) / 1000 +
      0.6 * Math.exp(-((lon - 18.5) ** 2 + (lat + 34) ** 2) / 1.5);
    // Power-law profile; rougher, more stable inland air has more shear.
    const shear = 0.13 + 0.09 * (1 - Math.exp(-d / 60));
    heights.forEach((h, j) => (out[j]![k] = Math.max(0.5, v20) * (h / 20) ** shear));
  });
  return out;
}

function boxBlur(values: Float32Array, grid: DemoGrid, radius: number): Float32Array {
  const { width: w, height: h } = grid;
  const tmp = new Float32Array(w * h);
  const out = new Float32Array(w * h);
  for (let r = 0; r < h; r++) {
    for (let c = 0; c < w; c++) {
      let s = 0;
      let n = 0;
      for (let k = Math.max(0, c - radius); k <= Math.min(w - 1, c + radius); k++, n++) s += values[r * w + k]!;
      tmp[r * w + c] = s / n;
    }
  }
  for (let c = 0; c < w; c++) {
    for (let r = 0; r < h; r++) {
      let s = 0;
      let n = 0;
      for (let k = Math.max(0, r - radius); k <= Math.min(h - 1, r + radius); k++, n++) s += tmp[k * w + c]!;
      out[r * w + c] = s / n;
    }
  }
  return out;
}
