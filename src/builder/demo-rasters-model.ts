/**
 * The demo's grids and the static fields behind its layers: real elevation
 * (ETOPO5, bundled in data-sources/), latitude and distance from the sea,
 * and the rain and wind climatologies built from them. Nothing here is
 * observed data. The temperature on these grids is the demo's one weather
 * (demo-weather.ts), which its stations record too. Constants are chosen
 * to land near real Western Cape / South African climatology (Cape Town
 * ≈ 17.5 °C annual mean, Sutherland July minima below freezing, Karoo
 * January maxima above 30 °C, winter rain in the south-west, summer rain
 * in the north-east); docs/layers.md lists them.
 */
import type { Site } from './demo-weather.ts';

/** Resolution of the demo grids in degrees. */
export const DEMO_RESOLUTION = { tc: 0.02, sa: 0.05 } as const;

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

/** The land pixels of a grid as weather sites, in `landIndex` order. */
export function landSites(f: StaticFields): Site[] {
  return Array.from(f.landIndex, (p) => ({
    lon: f.lon[p]!,
    lat: f.lat[p]!,
    elevation: f.elevation[p]!,
    coastKm: f.coastKm[p]!,
  }));
}

/** Kilometres to the sea at (lon, lat) inside the grid: bilinear between pixel centres (edges clamped). */
export function coastKmAt(f: StaticFields, lon: number, lat: number): number {
  const g = f.grid;
  const x = Math.min(g.width - 1, Math.max(0, (lon - g.west) / g.res - 0.5));
  const y = Math.min(g.height - 1, Math.max(0, (g.north - lat) / g.res - 0.5));
  const c0 = Math.floor(x);
  const r0 = Math.floor(y);
  const c1 = Math.min(g.width - 1, c0 + 1);
  const r1 = Math.min(g.height - 1, r0 + 1);
  const [fx, fy] = [x - c0, y - r0];
  const at = (r: number, c: number) => f.coastKm[r * g.width + c]!;
  return (1 - fy) * ((1 - fx) * at(r0, c0) + fx * at(r0, c1)) + fy * ((1 - fx) * at(r1, c0) + fx * at(r1, c1));
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
