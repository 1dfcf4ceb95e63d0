/**
 * The "Rasters at the real size" section of docs/performance.md, from one
 * run of `npm run bench -- --real-size` (bench/raster-scale-run.ts): the
 * targets, the builds, every query on both links, and arithmetic for 20
 * built years from the measured per-year figures (labelled as arithmetic).
 */
import { median } from './results.ts';
import type { RealSizeBuild, RealSizeRun } from './raster-scale-run.ts';

export const REAL_SIZE_HEADING = 'Rasters at the real size (npm run bench -- --real-size)';

/** What bench/raster-scale-results.json holds. */
export interface RealSizeResults {
  startedAt: string;
  durationS: number;
  environment: {
    node: string;
    cpus: number;
    cpuModel: string;
    memoryGB: number;
    loadAverage: { start: number; end: number };
  };
  grid: { width: number; height: number; res: number };
  years: number[];
  runs: number;
  builds: RealSizeBuild[];
  layer: { scale: number; chunk: number; previewFactor: number };
  /** Scenario id → label and runs per link id. */
  queries: Record<string, { label: string; links: Record<string, RealSizeRun[]> }>;
  /** The engine's answers against native GDAL's reads of the inputs. */
  oracle: Array<{ scenario: string; date: string; engine: number | null; gdal: number }>;
}

const KiB = 1024;
const fmtB = (b: number) =>
  b >= 1024 * KiB ? `${(b / 1024 / KiB).toFixed(2)} MiB` : `${(b / KiB).toFixed(b < 10 * KiB ? 1 : 0)} KiB`;
const fmtMs = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
const LINK_LABEL: Record<string, string> = { '40': '40 ms', '150-4mbit': '150 ms, 4 Mbit/s' };

/** The median run (by time) of a scenario on a link; its request and byte counts are those of that run. */
function mid(r: RealSizeResults, id: string, link: string): RealSizeRun | null {
  const runs = r.queries[id]?.links[link];
  if (!runs?.length) return null;
  const m = median(runs.map((x) => x.ms));
  return runs.reduce((best, x) => (Math.abs(x.ms - m) < Math.abs(best.ms - m) ? x : best));
}

/** Bytes after the catalog: what the query itself read. */
const afterCatalog = (run: RealSizeRun) => run.bytes - run.byKind.catalog.bytes;

/** The targets of the real-size bench, measured. */
export function realSizeTargets(r: RealSizeResults): Array<{ target: string; measured: string; met: boolean }> {
  const out: Array<{ target: string; measured: string; met: boolean }> = [];
  const q = (id: string, link = '40') => mid(r, id, link);
  const bytesTarget = (id: string, what: string, max: number, trips?: number) => {
    const run = q(id);
    if (!run) return;
    const b = afterCatalog(run);
    const t = run.roundTrips;
    out.push({
      target: `${what}: ≤ ${fmtB(max)} after the catalog${trips ? `, ≤ ${trips} sequential requests` : ''} (40 ms)`,
      measured: `${fmtB(b)} in ${run.requests - run.byKind.catalog.requests} requests, ${t} round trip${t === 1 ? '' : 's'}`,
      met: b <= max && (trips === undefined || t <= trips),
    });
  };
  bytesTarget('point-year', '1 point × 365 days', 32 * KiB);
  bytesTarget('ten-points-year', '10 points × 365 days', 200 * KiB);
  bytesTarget('point-all-years', `1 point × all years built (${r.years.length})`, 96 * KiB, 3);
  bytesTarget('point-twenty-years', '1 point × 20 years', 400 * KiB, 3);
  const rural = q('point-twenty-years', '150-4mbit');
  if (rural)
    out.push({
      target: '1 point × 20 years on 150 ms, 4 Mbit/s: ≤ 2 s (catalog included)',
      measured: fmtMs(rural.ms),
      met: rural.ms <= 2000,
    });
  const preview = q('preview-chromium');
  if (preview)
    out.push({
      target: 'map preview of one date in Chromium (the app’s Worker), 40 ms: ≤ 2 MB, ≤ 2 s',
      measured: `${fmtB(preview.bytes)} in ${preview.requests} requests, ${fmtMs(preview.ms)}`,
      met: preview.bytes <= 2e6 && preview.ms <= 2000,
    });
  const monthly = q('preview-monthly-node');
  const monthlyBuild = r.builds.find((b) => b.input === 'monthly');
  if (monthly)
    out.push({
      target: 'map preview of one month of a monthly `map` layer (Node), 40 ms: ≤ 2 MB',
      measured: `${fmtB(monthly.bytes)} in ${monthly.requests} requests, ${fmtMs(monthly.ms)}${monthlyBuild?.tileBytes ? ` (the file's full-grid tiles: ${fmtB(monthlyBuild.tileBytes.fullGrid)} of its ${fmtB(monthlyBuild.tileBytes.file)})` : ''}`,
      met: monthly.bytes <= 2e6,
    });
  for (const b of r.builds.filter((x) => x.input !== 'monthly')) {
    const perYear = b.wallS / b.years;
    out.push({
      target: `build, one daily year from a ${b.input}-interleaved input: ≤ 90 s, ≤ 2 GB peak RSS`,
      measured: `${perYear.toFixed(0)} s a year (${b.years} year${b.years === 1 ? '' : 's'} in ${b.wallS.toFixed(0)} s), ${(b.peakRssBytes / 1e9).toFixed(2)} GB`,
      met: perYear <= 90 && b.peakRssBytes <= 2e9,
    });
  }
  const worst = Math.max(...r.oracle.map((x) => (x.engine === null ? Infinity : Math.abs(x.engine - x.gdal))));
  out.push({
    target: 'answers equal native GDAL’s reads of the inputs (to the stored step)',
    measured: `${r.oracle.length} pixel-dates, largest difference ${worst.toFixed(3)} (step ${r.layer.scale})`,
    met: worst <= r.layer.scale / 2 + 1e-6,
  });
  return out;
}

/** The section, in Markdown. */
export function renderRealSizeSection(r: RealSizeResults): string {
  const env = r.environment;
  const targets = realSizeTargets(r);
  const point = mid(r, 'point-year', '40');
  const perPointYear = point ? afterCatalog(point) : Number.NaN;
  const band = r.builds.find((b) => b.input === 'band');
  const monthlyBuild = r.builds.find((b) => b.input === 'monthly');
  const lines = [
    `## ${REAL_SIZE_HEADING}`,
    '',
    `Every figure in this section comes from one run of \`npm run bench -- --real-size\` (bench/raster-scale-run.ts; raw numbers in bench/raster-scale-results.json), started ${r.startedAt.slice(0, 16).replace('T', ' ')} UTC on ${env.cpus} × ${env.cpuModel}, ${env.memoryGB} GB, Node ${env.node}; 1-minute load average ${env.loadAverage.start} at the start, ${env.loadAverage.end} at the end. The run took ${(r.durationS / 60).toFixed(1)} minutes; each query ran ${r.runs} times cold (a new engine each time), medians shown.`,
    '',
    `The layer: daily mean temperature on the Western Cape grid of the service this project replaces, ${r.grid.width.toLocaleString('en')} × ${r.grid.height.toLocaleString('en')} px at ${r.grid.res}°, years ${r.years.join(' and ')} (365 and 366 days), made by the seeded generator of bench/raster-scale-model.ts (the demo's temperature model on ETOPO5 with terrain texture, seasons, day-to-day weather, 0.1 °C pixel noise, a sea mask), written as Float32 DEFLATE GeoTIFFs of 365 or 366 bands and built with the CLI as an operator would. Stored as one Zarr store per year (docs/layers.md, section 2; docs/decisions/0001-daily-layers-as-zarr.md): chunks of ${r.layer.chunk} × ${r.layer.chunk} px × every date, previews at 1/${r.layer.previewFactor} of the grid. The bench server adds the latency to every answer and serves 6 requests at once; "round trips" counts the sequential phases after the catalog (bench/link.ts).`,
    '',
    ...(monthlyBuild
      ? [
          `Beside it, a monthly layer of the same model (${r.years[0]}'s 12 monthly means, one 12-band Float32 input) built with the CLI into the \`map\` layout: a Cloud-Optimized GeoTIFF of 32 px tiles with overviews (docs/layers.md, section 2.2), whose map preview reads the 900 × 575 px overview.`,
          '',
        ]
      : []),
    '| target | measured | met |',
    '|---|---|---|',
    ...targets.map((t) => `| ${t.target} | ${t.measured} | ${t.met ? 'yes' : '**no**'} |`),
    '',
    `**Builds** (the CLI under GNU time, as an operator types it without \`--scale\`: the build chose the step ${r.layer.scale} from the values, the finest power of ten at which they fit Int16, so it read the inputs twice):`,
    '',
    '| input | years | wall | CPU | peak RSS | stored | command |',
    '|---|---:|---:|---:|---:|---:|---|',
    ...r.builds.map(
      (b) =>
        `| ${b.input === 'monthly' ? 'monthly means, `map` layout' : `${b.input}-interleaved`} | ${b.years} | ${b.wallS.toFixed(0)} s | ${b.cpuS.toFixed(0)} s | ${(b.peakRssBytes / 1e6).toFixed(0)} MB | ${(b.storeBytes / 1e6).toFixed(0)} MB | \`${b.command}\` |`,
    ),
    '',
    '**Queries** (Node engine over HTTP; the Chromium row is the app’s engine Worker in a fresh page):',
    '',
    '| query | link | requests (catalog) | bytes: catalog / chunks / previews | round trips | time |',
    '|---|---|---:|---:|---:|---:|',
  ];
  for (const [id, q] of Object.entries(r.queries)) {
    for (const link of Object.keys(q.links)) {
      const run = mid(r, id, link)!;
      const k = run.byKind;
      lines.push(
        `| ${q.label} | ${LINK_LABEL[link] ?? link} | ${run.requests} (${k.catalog.requests}) | ${fmtB(k.catalog.bytes)} / ${fmtB(k.chunk.bytes)} / ${fmtB(k.preview.bytes)} | ${run.roundTrips} | ${fmtMs(run.ms)} |`,
      );
    }
  }
  if (band && point) {
    const years = 20;
    lines.push(
      '',
      `**20 built years (arithmetic from the figures above, not measured):** a point's year is one chunk of ${fmtB(perPointYear)}, so 20 years are 20 chunks, ≈ ${fmtB(perPointYear * years)}, asked at once (one round trip after the catalog); the catalog grows by the dates of each year (≈ 4.8 KB a year). Building 20 years from band-interleaved inputs: ≈ ${(((band.wallS / band.years) * years) / 60).toFixed(0)} minutes at the measured ${(band.wallS / band.years).toFixed(0)} s a year, memory as for one year (a year is written a strip at a time; the work folder holds one year's raw values, 3.0 GB); stored ≈ ${(((band.storeBytes / band.years) * years) / 1e9).toFixed(1)} GB.`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** `doc` with the real-size section replaced, or inserted before the scale section (or at the end). */
export function spliceRealSizeSection(doc: string, section: string): string {
  const parts = doc.split(/^(?=## )/m);
  const i = parts.findIndex((p) => p.startsWith(`## ${REAL_SIZE_HEADING}\n`));
  if (i >= 0) parts[i] = `${section.trimEnd()}\n\n`;
  else {
    const before = parts.findIndex((p) => p.startsWith('## Scale:'));
    parts.splice(before >= 0 ? before : parts.length, 0, `${section.trimEnd()}\n\n`);
  }
  return parts.join('');
}
