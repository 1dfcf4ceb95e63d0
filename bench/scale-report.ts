/**
 * The "Scale" section of docs/performance.md, rendered from one
 * `npm run bench -- --scale` run (bench/scale-results.json), and the splice
 * that replaces it in the page without touching the rest.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { ScaleResults, ScaleRun, ScaleScenarioResult } from './scale-run.ts';
import { median, targetTable } from './results.ts';

/** The heading the section starts with; the default bench keeps the section by this name (report.ts KEPT_SECTIONS). */
export const SCALE_HEADING = 'Scale: 2,000 and 600 stations (npm run bench -- --scale)';

const KB = 1000;
const fmtKB = (b: number) => (b >= 1e6 ? `${(b / 1e6).toFixed(2)} MB` : `${(b / KB).toFixed(b < 10 * KB ? 1 : 0)} KB`);
const fmtMs = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 1 : 0)} ms`);
const fmtInt = (n: number) => Math.round(n).toLocaleString('en');
const med = <T>(xs: readonly T[], f: (x: T) => number) => median(xs.map(f));

/** One target row: what, the measured figure, the limit, whether it is met. */
export interface ScaleTarget {
  target: string;
  measured: string;
  met: boolean;
}

function byId(r: ScaleResults, id: string): ScaleScenarioResult {
  const s = r.scenarios.find((x) => x.id === id);
  if (!s) throw new Error(`scale results lack ${id}`);
  return s;
}

const kindMed = (runs: readonly ScaleRun[], k: keyof ScaleRun['kinds'], what: 'bytes' | 'requests' = 'bytes') =>
  med(runs, (x) => x.kinds[k][what]);

/** The issue's targets, evaluated on one run. */
export function scaleTargets(r: ScaleResults): ScaleTarget[] {
  const seed = byId(r, 'seed-nearest-hourly');
  const netNear = byId(r, 'network-nearest-daily');
  const poly = byId(r, 'network-poly-daily');
  const t: ScaleTarget[] = [];
  const all = med(seed.coldStart, (x) => x.bytes);
  t.push({
    target: 'cold nearest-station, 10 points × 5 types × 1 year hourly, seed: all bytes (code + index + data) ≤ 1.5 MB',
    measured: `${fmtKB(all)} (code ${fmtKB(kindMed(seed.coldStart, 'code'))}, index ${fmtKB(kindMed(seed.coldStart, 'index'))}, footers ${fmtKB(kindMed(seed.coldStart, 'footer'))}, data ${fmtKB(kindMed(seed.coldStart, 'data'))})`,
    met: all <= 1.5e6,
  });
  const data = kindMed(seed.cold, 'data');
  const footer = kindMed(seed.cold, 'footer');
  t.push({
    target: 'same: data bytes ÷ compressed column chunks that hold the answer (native DuckDB parquet_metadata) ≤ 2',
    measured: `${(data / seed.answerChunks.bytes).toFixed(2)} (${fmtKB(data)} ÷ ${fmtKB(seed.answerChunks.bytes)}, ${seed.answerChunks.files} files); with footers ${((data + footer) / seed.answerChunks.bytes).toFixed(2)}`,
    met: data / seed.answerChunks.bytes <= 2,
  });
  const first = med(seed.coldStart, (x) => x.ms);
  t.push({
    target: 'same: first answer after navigation, 40 ms per request ≤ 1.5 s',
    measured: fmtMs(first),
    met: first <= 1500,
  });
  t.push({
    target: 'same: first answer after navigation, 40 ms per request ≤ 0.8 s',
    measured: fmtMs(first),
    met: first <= 800,
  });
  const polyLoaded = med(poly.cold, (x) => x.ms);
  t.push({
    target: `network poly-aggregate (${poly.stations} stations × 5 types × 1 year daily), cold from a loaded page, 40 ms per request ≤ 0.8 s`,
    measured: `${fmtMs(polyLoaded)} (runs ${poly.cold.map((x) => fmtMs(x.ms)).join(', ')})`,
    met: polyLoaded <= 800,
  });
  const idx = kindMed(netNear.coldStart, 'index');
  t.push({
    target: "first query's index bytes, network (2,000 stations) ≤ 150 KB",
    measured: `${fmtKB(idx)} (nearest-station, cold start; poly-aggregate ${fmtKB(kindMed(poly.coldStart, 'index'))})`,
    met: idx <= 150e3,
  });
  const pBytes = med(poly.coldStart, (x) => x.bytes);
  const pMs = med(poly.coldStart, (x) => x.ms);
  t.push({
    target: `cold poly-aggregate, 1 polygon × ≥ 50 stations × 5 types × 1 year daily, network ≤ 2 MB and ≤ 2 s`,
    measured: `${fmtKB(pBytes)}, ${fmtMs(pMs)} (${poly.stations} stations; navigation → answer, code included)`,
    met: pBytes <= 2e6 && pMs <= 2000,
  });
  for (const s of [seed, netNear, poly]) {
    const w = med(s.warm, (x) => x.ms);
    const f = median(s.native.warmMs);
    t.push({
      target: `warm ${s.id} ÷ native DuckDB, hand-written SQL on the same Parquet ≤ 2×`,
      measured: `×${(w / f).toFixed(1)} (${fmtMs(w)} vs ${fmtMs(f)})`,
      met: w / f <= 2,
    });
  }
  const b = r.builds.seed;
  t.push({
    target: 'build of seed on 2 cores ≤ 15 min, peak RSS ≤ 3 GB',
    measured: `${(b.wallS / 60).toFixed(1)} min, ${(b.peakRssBytes / 1e9).toFixed(2)} GB`,
    met: b.wallS <= 900 && b.peakRssBytes <= 3e9,
  });
  const demo = r.raster.find((x) => x.dataset === 'demo')!;
  const net = r.raster.find((x) => x.dataset === 'network')!;
  const dMs = med(demo.runs, (x) => x.ms);
  const nMs = med(net.runs, (x) => x.ms);
  const stationReqs = Math.max(...net.runs.map((x) => x.stationRequests));
  t.push({
    target: 'first raster answer: unchanged or better, no station bytes',
    measured: `${fmtMs(nMs)} on the network dataset vs ${fmtMs(dMs)} on the demo (same rasters, same run); ${stationReqs} station requests; catalog.json ${fmtKB(kindMed(net.runs, 'index'))} vs ${fmtKB(kindMed(demo.runs, 'index'))}`,
    // Within 10 % counts as unchanged: the medians of 3 cold starts on a shared machine move that much.
    met: stationReqs === 0 && nMs <= dMs * 1.1,
  });
  return t;
}

function kindTable(title: string, runs: readonly ScaleRun[]): string[] {
  const row = (k: keyof ScaleRun['kinds']) => `${fmtInt(kindMed(runs, k, 'requests'))} / ${fmtKB(kindMed(runs, k))}`;
  return [
    `| ${title} | ${fmtMs(med(runs, (x) => x.ms))} | ${fmtMs(med(runs, (x) => x.networkMs))} | ${row('code')} | ${row('index')} | ${row('footer')} | ${row('data')} | ${fmtInt(med(runs, (x) => x.requests))} / ${fmtKB(med(runs, (x) => x.bytes))} |`,
  ];
}

/** Where the time of a cold start went, from the run's own numbers. */
function timeSplit(runs: readonly ScaleRun[], warm: readonly ScaleRun[]): string {
  const total = med(runs, (x) => x.ms);
  const open = med(runs, (x) => x.networkMs);
  return `${fmtMs(total)} from navigation, of which ${fmtMs(open)} with requests in flight (${fmtInt(med(runs, (x) => x.requests))} requests through 6 connections at 40 ms each) and ${fmtMs(total - open)} with none, the page's own work; the same query warm, with nothing to fetch, takes ${fmtMs(med(warm, (x) => x.ms))} (the reader keeps decoded column chunks, so this is building the answer, passing it from the Worker as columns and making its objects on the page)`;
}

/** Why each missed target was missed, with this run's numbers. */
function missedNotes(r: ScaleResults, targets: ScaleTarget[]): string[] {
  const missed = targets.filter((t) => !t.met);
  if (!missed.length) return ['Every target is met in this run.', ''];
  const out: string[] = [];
  const load = `1-minute load average ${r.environment.loadAverage.start} at the start of the run and ${r.environment.loadAverage.end} at the end, on 2 cores shared with other work`;
  const seed = byId(r, 'seed-nearest-hourly');
  const poly = byId(r, 'network-poly-daily');
  if (missed.some((t) => t.target.startsWith('same: first answer'))) {
    out.push(
      `**First answer after navigation (seed).** ${timeSplit(seed.coldStart, seed.warm)}. ${load}. The requests form seven dependent rounds (page, script, engine Worker, catalog.json, index, coverage lines, station files: each file's footer and column chunks come in one request, planned from its coverage line's chunk map; ≥ 280 ms of latency alone). What would cut it: less work in the page and its Worker, which is most of the time: parsing the app's and the Worker's code, and decoding the chunks with hyparquet (rows and answer are built once, as columns; "The page's own work" under Station reads has the profile).`,
      '',
    );
  }
  if (
    missed.some(
      (t) => t.target.startsWith('cold nearest-station, 10 points') || t.target.startsWith('same: data bytes'),
    )
  ) {
    const start = kindMed(seed.coldStart, 'data');
    const loaded = kindMed(seed.cold, 'data');
    out.push(
      `**Bytes of the seed's cold query.** Data ${fmtKB(start)} at the cold start and ${fmtKB(loaded)} from a loaded page, ${(loaded / seed.answerChunks.bytes).toFixed(2)}× the column chunks that hold the answer. The merge gap follows the measured link ("The gap follows the measured link" under Station reads) and this link has no bandwidth limit, so once the reader has timed a large enough body it joins chunks up to 64 KiB apart to save requests. Where bytes cost time it keeps 8 KiB gaps (on 4 Mbit/s; and 776 KB, 1.61×, for this query before the meter). Chosen: where bytes are free, fewer requests.`,
      '',
    );
  }
  if (missed.some((t) => t.target.startsWith('network poly-aggregate'))) {
    out.push(
      `**Network poly-aggregate from a loaded page.** ${fmtMs(med(poly.cold, (x) => x.ms))}, of which ${fmtMs(med(poly.cold, (x) => x.networkMs))} with requests in flight: one file per station, so ${poly.stations} requests queue behind 6 connections (≥ ${Math.ceil(poly.stations / 6)} rounds of 40 ms) after the catalog and the index. ${load}. What would cut it: fewer requests, which needs another archive layout (the stations of one place and year in one file, read with a few ranges).`,
      '',
    );
  }
  if (missed.some((t) => t.target.startsWith('cold poly-aggregate')))
    out.push(
      `**Cold poly-aggregate (network).** ${timeSplit(poly.coldStart, poly.warm)}; each station file is one request (read whole straight after the index where the measured link makes that worth it, else its footer and column chunks together, from its coverage line's chunk map), so ${poly.stations} stations queue behind 6 connections (≥ ${Math.ceil(poly.stations / 6)} rounds of 40 ms). ${load}. What would cut it: as above, the page's own work more than the requests.`,
      '',
    );
  if (missed.some((t) => t.target.startsWith('build'))) {
    const b = r.builds.seed;
    out.push(
      `**Seed build.** ${(b.wallS / 60).toFixed(1)} min wall for ${(b.cpuS / 60).toFixed(1)} min of CPU (user + system) on 2 cores, peak RSS ${(b.peakRssBytes / 1e9).toFixed(2)} GB, ${fmtInt(b.inputRows)} input rows; ${b.builtThisRun ? load : 'built by an earlier invocation'}.`,
      '',
    );
  }
  for (const t of missed.filter((x) => x.target.startsWith('warm'))) {
    const sc = byId(r, t.target.split(' ')[1]!);
    const types = (sc.body.dataTypes as string[]).length;
    out.push(
      `**${t.target.split(' ÷')[0]}.** ${t.measured}. Warm queries fetch nothing: the engine caches bytes, not decoded rows, so each query decodes the cached column chunks again — whole row groups (4,096 hours or 2,048 days, so up to 5.6 years of a station to use one), one hyparquet \`parquetRead\` per column and station (${fmtInt(sc.stations * (types + 1))} here) — in JavaScript on one thread, then averages per period; native DuckDB decodes the same row groups in C++ on 2 threads. What would reach 2×: keeping the decoded columns of recently read row groups (memory for time), or smaller daily row groups (more footer bytes per file).`,
      '',
    );
  }
  return out;
}

/** The whole section, starting with its heading. */
export function renderScaleSection(r: ScaleResults): string {
  const targets = scaleTargets(r);
  const env = r.environment;
  const out: string[] = [
    `## ${SCALE_HEADING}`,
    '',
    `Every figure in this section comes from one run of \`npm run bench -- --scale\` (bench/scale-run.ts; raw numbers in bench/scale-results.json), started ${r.startedAt.slice(0, 16).replace('T', ' ')} UTC on ${env.cpus} × ${env.cpuModel}, ${env.memoryGB} GB, Node ${env.node}; 1-minute load average ${env.loadAverage.start} at the start, ${env.loadAverage.end} at the end. The run took ${(r.durationS / 60).toFixed(1)} minutes${r.size === 'small' ? " — **development size (`--scale-size small`), not the issue's archives**" : ''}.`,
    '',
    'Inputs (bench/scale-inputs.ts, generated deterministically with native DuckDB SQL and cached under bench/.cache/): stations spread over South Africa that open late (35 %) and close early (15 %), month-long outages in 3 % of station-months, 0.4 % of single readings lost, 12 % of stations without humidity and (hourly) 30 % without solar radiation.',
    '',
    '| archive | stations | years | scale | value columns | input rows | input Parquet | built archive | station files | build wall | build CPU | build peak RSS |',
    '|---|---:|---|---|---:|---:|---:|---:|---|---:|---:|---:|',
    ...(['network', 'seed'] as const).map((id) => {
      const i = r.inputs[id];
      const b = r.builds[id];
      return `| ${id} | ${fmtInt(i.stations)} | ${i.years} | ${i.scale} | ${i.columns} | ${fmtInt(i.rows)} | ${fmtKB(i.bytes)} | ${fmtKB(b.archiveBytes)} | ${Object.entries(
        b.files,
      )
        .map(([k, v]) => `${fmtInt(v)} ${k}`)
        .join(
          ', ',
        )} | ${(b.wallS / 60).toFixed(1)} min | ${(b.cpuS / 60).toFixed(1)} min | ${(b.peakRssBytes / 1e9).toFixed(2)} GB |`;
    }),
    '',
    `Builds: \`${r.builds.seed.command}\` (and the same for network with \`--daily\`), run as a child process under \`/usr/bin/time -v\` (wall time; peak RSS is GNU time's maximum resident set size: the CLI is one Node process with native DuckDB inside it). ${(['seed', 'network'] as const).map((id) => `${id} ${r.builds[id].builtThisRun ? 'was built in this run' : `was built at ${r.builds[id].builtAt.slice(0, 16).replace('T', ' ')} UTC by an earlier invocation of the same bench and taken from its cache`}`).join('; ')}. Each dataset also holds the demo's 16 raster layers (copied, not built), for the first-raster-answer row.`,
    '',
    `Queries, in Chromium through the bench page (engine Worker, hyparquet over HTTP Range), served by bench/server.ts with **${r.setup.latencyMs} ms per request and at most ${r.setup.maxConnections} at once**, no compression: ${r.scenarios.map((s) => `${s.title}`).join('; ')}. "Cold start" is navigation → answer in a fresh context (everything fetched, code included; ${r.setup.runs.coldStart} runs); "cold" is the query from a freshly loaded page${r.setup.settleMs ? ` (its engine Worker has answered once, then the page sits idle for ${fmtMs(r.setup.settleMs)}, as a person looks at the map before drawing; bench/scale-run.ts SETTLE_MS says what sending it at once adds)` : ''} (${r.setup.runs.cold} runs); "warm" is the same query again on that page (${r.setup.runs.warm} runs). Native DuckDB (@duckdb/node-api, 2 threads) answers the same queries with hand-written SQL (\`read_parquet([...files]) WHERE time BETWEEN …\`, bench/baselines/stations.ts) on the same local Parquet files: first run, then ${r.setup.runs.native} warm runs. Medians throughout. Kinds: *code* (HTML, JS), *index* (catalog.json, stations/index.parquet, coverage.jsonl lines), *footers* (the Parquet footers of the station files read) and *data* (column chunks, with the small gaps between them that the reader reads through rather than ask for another range; the server answers several ranges in one request, docs/data.md).`,
    '',
    '### Targets',
    '',
    ...targetTable(targets),
    '',
    ...missedNotes(r, targets),
    '### Requests and bytes by kind',
    '',
    'Each cell: requests / bytes (medians). "Requests open": how much of the time at least one request was in flight (the union of their spans, each including the 40 ms latency and the wait for one of the 6 connections); the rest is the page\'s own work (parsing, decoding, planning) with nothing in flight.',
    '',
    '| query | time | requests open | code | index | footers | data | all |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...r.scenarios.flatMap((s) => [
      ...kindTable(`${s.id}, cold start`, s.coldStart),
      ...kindTable(`${s.id}, cold (page loaded)`, s.cold),
      ...kindTable(`${s.id}, warm`, s.warm),
    ]),
    ...r.raster.flatMap((x) => kindTable(`first raster answer (point-daily), ${x.dataset}, cold start`, x.runs)),
    '',
    '| query | engine warm (Chromium) | native DuckDB first run | native DuckDB warm | ratio |',
    '|---|---:|---:|---:|---:|',
    ...r.scenarios.map((s) => {
      const w = med(s.warm, (x) => x.ms);
      const f = median(s.native.warmMs);
      return `| ${s.id} | ${fmtMs(w)} | ${fmtMs(s.native.coldMs)} | ${fmtMs(f)} | ×${(w / f).toFixed(1)} |`;
    }),
    '',
    '### Answers',
    '',
    "Every answer of the first cold run is compared value by value (tolerance 10⁻⁹) with native DuckDB reading the same archive, and with an answer computed from the *input* files alone (bench/scale-verify.ts: SQL over the stations CSV and observations Parquet, GeographicLib for distances, none of the engine's code); any difference fails the bench.",
    '',
    '| query | stations | values | equal to native DuckDB on the archive | equal to SQL over the inputs |',
    '|---|---:|---:|---:|---:|',
    ...r.scenarios.map(
      (s) =>
        `| ${s.id} | ${s.stations} | ${fmtInt(s.agreement.inputs.values)} | ${fmtInt(s.agreement.native.equal)} | ${fmtInt(s.agreement.inputs.equal)} |`,
    ),
    '',
  ];
  return `${out.join('\n')}\n`;
}

/** `doc` with its scale section replaced by `section` (or `section` appended before the test-measured sections). */
export function spliceScaleSection(doc: string, section: string): string {
  const parts = doc.split(/^(?=## )/m);
  const i = parts.findIndex((p) => p.startsWith(`## ${SCALE_HEADING}\n`));
  if (i >= 0) parts[i] = `${section.trimEnd()}\n\n`;
  else {
    const before = ['## Station reads', '## Raster reads']
      .map((h) => parts.findIndex((p) => p.startsWith(h)))
      .find((x) => x >= 0);
    const at = before ?? -1;
    parts.splice(at >= 0 ? at : parts.length, 0, `${section.trimEnd()}\n\n`);
  }
  return parts.join('');
}

// `npx tsx bench/scale-report.ts`: re-render the scale section of docs/performance.md from bench/scale-results.json.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const results = JSON.parse(await readFile(`${root}bench/scale-results.json`, 'utf8')) as ScaleResults;
  const doc = await readFile(`${root}docs/performance.md`, 'utf8');
  await writeFile(`${root}docs/performance.md`, spliceScaleSection(doc, renderScaleSection(results)));
  process.stdout.write('scale section of docs/performance.md re-rendered from bench/scale-results.json\n');
}
