import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { loadElevation } from '../../src/builder/elevation.ts';
import { createClimateEngine } from '../../src/engine/engine.ts';
import { fileLocation } from '../../src/node/file-location.ts';
import { catalogJson } from '../helpers/catalog-json.ts';

const demo = inject('demoDataset');
/** °C per metre, docs/layers.md. */
const LAPSE = 0.005;
/** Stations this close in height to their pixel are compared index by index. */
const FLAT_M = 50;

interface Layer {
  dataType: string;
  subDataType: string;
  bbox: [number, number, number, number];
  resolution: [number, number];
}

interface Compared {
  name: string;
  dz: number;
  /** Mean over complete days of the station's daily mid-range minus the layers'. */
  meanDiff: number;
  days: number;
  correlation: number;
  indices: Record<'dpcu' | 'gdd' | 'frost', [station: number, layer: number] | null>;
}

function correlation(a: number[], b: number[]): number {
  const mean = (x: number[]) => x.reduce((s, v) => s + v, 0) / x.length;
  const [ma, mb] = [mean(a), mean(b)];
  let [sab, saa, sbb] = [0, 0, 0];
  for (let i = 0; i < a.length; i++) {
    sab += (a[i]! - ma) * (b[i]! - mb);
    saa += (a[i]! - ma) ** 2;
    sbb += (b[i]! - mb) ** 2;
  }
  return sab / Math.sqrt(saa * sbb);
}

describe('the demo agrees with itself', () => {
  it('every station and its layer pixel record the same weather, apart from the height between them', async () => {
    const engine = createClimateEngine({ dataset: fileLocation(demo) });
    const elevation = await loadElevation();
    const catalog = (await catalogJson(join(demo, 'catalog.json'))) as { rasters: Layer[] };
    const grid = catalog.rasters.find((l) => l.dataType === 'chill' && l.subDataType === 'dpcu')!;
    for (const l of catalog.rasters.filter((x) => ['temp', 'chill', 'gdd', 'frost'].includes(x.dataType)))
      expect([l.bbox, l.resolution], `${l.dataType}/${l.subDataType} on the chill grid`).toEqual([
        grid.bbox,
        grid.resolution,
      ]);
    const [west, south, east, north] = grid.bbox;
    const [rx, ry] = grid.resolution;
    const post = async (endpoint: string, body: unknown) => {
      const r = await engine.handle({ method: 'POST', path: `/api/${endpoint}/`, body: JSON.stringify(body) });
      expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
      return r.body as Record<string, any>;
    };

    const stations = (await engine.stations()).filter(
      (s) => s.lon > west && s.lon < east && s.lat > south && s.lat < north,
    );
    const compared: Compared[] = [];
    for (const s of stations) {
      const wkt = `POINT (${s.lon} ${s.lat})`;
      const layer = async (dataType: string, subDataType: string, timeScale: string, start: string, end: string) =>
        Object.values(
          (
            await post('point', {
              wkts: wkt,
              dataType,
              options: { subDataType, dataExtent: 'tc', timeScale },
              startDate: start,
              endDate: end,
            })
          )[wkt] ?? {},
        ) as Array<number | null>;
      const [dpcuLayer] = await layer('chill', 'dpcu', 'annual', '2024', '2024');
      if (dpcuLayer === null || dpcuLayer === undefined) continue; // a pixel at sea: the layers have no value there
      const lo = await layer('temp', 'min', 'daily', '2024-01-01', '2024-12-31');
      const hi = await layer('temp', 'max', 'daily', '2024-01-01', '2024-12-31');
      const [gddLayer] = await layer('gdd', 'apples', 'annual', '2024', '2024');
      const frostLayer = (await layer('frost', '-', 'monthly', '2024-01', '2024-12')).reduce<number>(
        (a, b) => a + b!,
        0,
      );

      // The station's daily mid-range from its own hours, on every complete day.
      // A point's answers come from the nearest station that has the data; only this station's own count here.
      const own = (m: { station_lat: number; station_lon: number }) =>
        m.station_lat === s.lat && m.station_lon === s.lon;
      const record = (
        await post('nearest-station', {
          wkts: wkt,
          dataTypes: ['temperature_mean'],
          options: { timeScale: 'hourly' },
          startDate: '2024-01-01T00:00:00',
          endDate: '2024-12-31T23:00:00',
        })
      )[wkt];
      const hours = (own(record.metadata) ? record.data : {}) as Record<string, { temperature_mean: number | null }>;
      const byDay = new Map<string, number[]>();
      for (const [t, v] of Object.entries(hours)) {
        if (v.temperature_mean === null) continue;
        const day = byDay.get(t.slice(0, 10)) ?? [];
        day.push(v.temperature_mean);
        byDay.set(t.slice(0, 10), day);
      }
      const [st, ly]: [number[], number[]] = [[], []];
      for (const [day, v] of byDay) {
        const i = (Date.parse(day) - Date.UTC(2024, 0, 1)) / 86_400_000;
        if (v.length < 24) continue;
        st.push((Math.min(...v) + Math.max(...v)) / 2);
        ly.push((lo[i]! + hi[i]!) / 2);
      }

      // Indices; a station's sums run over its known hours (chillR's rule), so they are scaled to the whole season.
      const index = async (name: string, start: string, end: string, options: object) => {
        const answer = (
          await post('station-indices', {
            wkts: wkt,
            indices: [name],
            startDate: start,
            endDate: end,
            options: { by: 'window', ...options },
          })
        )[wkt];
        const p = Object.values(answer.indices[name].periods)[0] as {
          value: number | null;
          hours_expected: number;
          hours_used: number;
        };
        return p.value === null || !own(answer.metadata) ? null : (p.value * p.hours_expected) / p.hours_used;
      };
      const dpcu = await index('dpcu', '2024-05-01', '2024-08-31', {});
      const gdd = await index('gdd', '2023-09-01', '2024-03-31', { crop: 'apples' });
      const frost = await index('frost_days', '2024-01-01', '2024-12-31', {});

      const centre = [
        west + (Math.floor((s.lon - west) / rx) + 0.5) * rx,
        north - (Math.floor((north - s.lat) / ry) + 0.5) * ry,
      ];
      const dz = (s.elevation ?? elevation(s.lon, s.lat)) - elevation(centre[0]!, centre[1]!);
      compared.push({
        name: s.name,
        dz,
        meanDiff: st.reduce((a, v, i) => a + v - ly[i]!, 0) / st.length,
        days: st.length,
        correlation: correlation(st, ly),
        indices: {
          dpcu: dpcu === null ? null : [dpcu, dpcuLayer],
          gdd: gdd === null || gddLayer === null ? null : [gdd, gddLayer!],
          frost: frost === null ? null : [frost, frostLayer],
        },
      });
    }

    // Not vacuous: nearly every demo station lies in the layers' extent, and most are as high as their pixel.
    expect(compared.length).toBeGreaterThanOrEqual(90);
    const flat = compared.filter((c) => Math.abs(c.dz) <= FLAT_M);
    expect(flat.length).toBeGreaterThanOrEqual(50);

    let judged = 0;
    for (const c of compared) {
      const at = `${c.name}, ${Math.round(c.dz)} m above its pixel`;
      // The same weather: day by day in step, and apart on average by what the height explains.
      if (c.days < 30) continue; // too few complete days of its own in 2024 to judge (a station opened or closed)
      judged++;
      expect.soft(c.correlation, at).toBeGreaterThan(0.98);
      expect
        .soft(Math.abs(c.meanDiff - -LAPSE * c.dz), `${at}: mean difference ${c.meanDiff.toFixed(2)} °C`)
        .toBeLessThan(0.25);
      // Warmer (lower) stations count more degree days and fewer frost days than their pixel, colder ones the reverse.
      const sign = Math.sign(-c.dz);
      if (Math.abs(c.dz) > FLAT_M) {
        if (c.indices.gdd) expect.soft(sign * (c.indices.gdd[0] - c.indices.gdd[1]), `${at}: gdd`).toBeGreaterThan(0);
        if (c.indices.frost)
          expect.soft(sign * (c.indices.frost[1] - c.indices.frost[0]), `${at}: frost days`).toBeGreaterThanOrEqual(0);
      }
    }
    expect(judged).toBeGreaterThanOrEqual(85);
    // Where the terrain explains little (≤ 0.25 °C), the indices agree: within 10 % or 75 units of chill (on the
    // coast a season's chill moves by about 300 units per °C), 5 % of degree days, 25 % or 4 frost days (a station's
    // minimum is the lowest of its noisy hours, so it frosts a little more often than the layer's smooth Tmin).
    const near = (pair: [number, number] | null, rel: number, abs: number) =>
      pair === null || Math.abs(pair[0] - pair[1]) <= Math.max(abs, rel * Math.abs(pair[1]));
    for (const c of flat) {
      const at = `${c.name}, ${Math.round(c.dz)} m above its pixel: ${JSON.stringify(c.indices)}`;
      expect.soft(near(c.indices.dpcu, 0.1, 75), `${at}: DPCU`).toBe(true);
      expect.soft(near(c.indices.gdd, 0.05, 50), `${at}: gdd`).toBe(true);
      expect.soft(near(c.indices.frost, 0.25, 4), `${at}: frost days`).toBe(true);
    }
    for (const k of ['dpcu', 'gdd', 'frost'] as const)
      expect(flat.filter((c) => c.indices[k] !== null).length, `${k} compared`).toBeGreaterThanOrEqual(30);
  });
});
