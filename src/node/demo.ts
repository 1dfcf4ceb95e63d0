/**
 * `climate-query demo`: writes synthetic demo input files and runs the same
 * build a user runs on their own files. Deterministic.
 */
import { countOf } from '../contract/quote.ts';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { heartbeat } from './heartbeat.ts';
import { workFolder } from '../builder/work-folder.ts';

/** Where `npm start` expects the demo dataset (served by Vite from public/). */
export const DEFAULT_DATASET = fileURLToPath(new URL('../../public/data/demo', import.meta.url));

/** The demo catalog's notice: shown by the app beside every answer. */
// The station records and the layers hold one synthetic weather (docs/indices.md, "The demo's layers and
// stations"): they agree up to what the height between a station and a pixel explains.
export const DEMO_NOTICE =
  'Demo dataset: synthetic weather, not measurements. The station records and the climate layers hold the same synthetic weather, so they agree up to what the height of each place explains.';

/** Builds the whole demo dataset into `out`, logging each step with its duration. */
export async function buildDemo(out: string, log: (line: string) => void = () => {}): Promise<void> {
  const { withDatasetLock } = await import('../builder/dataset/dataset-lock.ts');
  return withDatasetLock(out, 'demo', () => buildDemoLocked(out, log));
}

async function buildDemoLocked(out: string, log: (line: string) => void): Promise<void> {
  // Nothing goes five seconds without a line: each step says what it does as it starts, and a beat
  // says it goes on (the first step printed nothing for 74 s on a busy machine; npm start looked hung).
  const beat = heartbeat(log, 'demo: ');
  const say = beat.say;
  say(`demo: building the demo dataset into ${out} (stations, then raster layers; a minute or two on two cores)`);
  // Imported here, not above: they need native DuckDB and gdal3.js, optional
  // packages that importing DEFAULT_DATASET must not require.
  const { writeDemoStationInputs } = await import('../builder/demo-stations.ts');
  const { buildStations } = await import('../builder/stations-build.ts');
  const { buildDemoRasters } = await import('../builder/demo-rasters.ts');
  const inputs = await workFolder('demo');
  try {
    let t = Date.now();
    beat.phase('writing synthetic hourly weather for 130 stations', true);
    const files = await writeDemoStationInputs(inputs);
    say(`demo: station inputs written in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    t = Date.now();
    beat.phase('building the stations (hourly, then daily and monthly derived)');
    const s = await buildStations({ stations: files.stations, hourly: files.hourly }, out, 'demo');
    const { updateCatalog } = await import('../builder/dataset/dataset-writer.ts');
    await updateCatalog(out, 'demo', (c) => {
      c.notice = DEMO_NOTICE;
      const line =
        'Demo station records are synthetic weather at the positions and names of NOAA ISD stations (and invented valley stations), not measurements.';
      if (!c.attribution.includes(line)) c.attribution.unshift(line);
    });
    say(`demo: ${countOf(s.count, 'station')} built in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    t = Date.now();
    beat.phase('building the raster layers');
    await buildDemoRasters(out, { log: (line) => say(`demo: ${line}`) });
    say(`demo: raster layers built in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  } finally {
    beat.stop();
    await rm(inputs, { recursive: true, force: true });
  }
}
