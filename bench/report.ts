/**
 * Renders docs/performance.md from one run's results: the targets, the
 * per-scenario tables with ratios against each baseline, cold start in
 * Chromium, answer equality and, for every missed target, why and what
 * would reach it. Every number comes from the results passed in. The
 * page's hand-written sections ("Raster reads", "Raster build") are kept
 * as they are, after the generated part.
 *
 * Re-render without measuring: `npx tsx bench/report.ts` (reads
 * bench/results.json, rewrites docs/performance.md).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Method } from './jobs.ts';
import { POLYGON_LABELS } from './scenarios.ts';
import { PROFILES } from './link.ts';
import {
  median,
  medianMs,
  profileKey,
  profileOfRuns,
  runsAt,
  type ProfileKey,
  targetTable,
  type AnyRun,
  type BenchResults,
  type MethodResult,
  type ScenarioResult,
} from './results.ts';
import { SCALE_HEADING } from './scale-report.ts';
import { REAL_SIZE_HEADING } from './raster-scale-report.ts';

/** Sections of the existing page that are written by hand and kept. */
export const KEPT_SECTIONS = [
  REAL_SIZE_HEADING,
  SCALE_HEADING,
  'Station reads: how the layout and reader were chosen',
  'Raster reads',
  'Raster build',
  'App bundle',
  'Demo dataset build',
];

const KiB = 1024;
const MiB = 1024 * 1024;

/** Bytes for humans (binary units, like the rest of the page). */
export function fmtBytes(b: number): string {
  if (!Number.isFinite(b)) return '—';
  if (b === 0) return '0';
  if (b >= 10 * MiB) return `${(b / MiB).toFixed(0)} MiB`;
  if (b >= MiB) return `${(b / MiB).toFixed(1)} MiB`;
  if (b >= KiB) return `${(b / KiB).toFixed(0)} KiB`;
  return `${b} B`;
}

/** Milliseconds for humans. */
export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 10) return `${ms.toFixed(0)} ms`;
  return `${ms.toFixed(1)} ms`;
}

/** The link profiles beyond the plain 0 and 40 ms ones, in the order the report shows them. */
const LINK_IDS = ['40', '40-20mbit', '150-4mbit', '40-h2'];

/** A profile id in words: "40 ms" for the plain ones, the link for the others. */
function profileName(id: string): string {
  if (id === 'local') return 'local';
  if (/^\d+$/.test(id)) return `${id} ms`;
  const p = PROFILES.find((x) => x.id === id);
  return p ? (p.http2 ? `${p.latencyMs} ms HTTP/2` : `${p.latencyMs} ms ${p.mbit} Mbit/s`) : id;
}

const fmtInt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-GB') : '—');

/** A ratio for humans: ×1.0 to ×9.9 with a decimal, larger ones whole. */
export function fmtRatio(r: number): string {
  if (!Number.isFinite(r)) return '—';
  return r >= 10 ? `×${r.toFixed(0)}` : `×${r.toFixed(1)}`;
}

const pct = (x: number) => (x >= 0.1 ? `${(x * 100).toFixed(0)} %` : `${(x * 100).toFixed(1)} %`);

/** A median of some field over runs. */
function med(runs: readonly AnyRun[] | undefined, f: (r: AnyRun) => number): number {
  return median((runs ?? []).map(f));
}

const method = (s: ScenarioResult, m: Method): MethodResult | undefined => s.methods.find((x) => x.method === m);

/** Bytes of the station archive a run read: the index and coverage lines plus the station files. */
const archiveBytes = (x: AnyRun) => (x.parts ? x.parts.index.bytes + x.parts.data.bytes : NaN);

/** Median warm time of a method over all its latencies (warm queries make no requests, so latency does not enter). */
function warmMs(s: ScenarioResult, m: Method): number {
  return median(method(s, m)?.latencies.flatMap((l) => l.warm.map((x) => x.ms)) ?? []);
}

/** One evaluated target. */
export interface TargetRow {
  target: string;
  measured: string;
  met: boolean;
}

/** The issue's targets, evaluated on `r` (all at 40 ms latency). */
export function evaluateTargets(r: BenchResults): TargetRow[] {
  const rows: TargetRow[] = [];
  const byId = (id: string) => r.scenarios.find((s) => s.id === id);
  for (const id of ['point-daily', 'polygon-daily']) {
    const s = byId(id);
    if (!s) continue;
    const ratio = medianMs(s, 'geoblaze', 40, 'cold') / medianMs(s, 'engine-node', 40, 'cold');
    rows.push({
      target: `${kindOf(s)} × 365 dates: ≥ 60× faster than geoblaze on per-date files (cold, 40 ms)`,
      measured: `${fmtRatio(ratio)} (${fmtMs(medianMs(s, 'engine-node', 40, 'cold'))} vs ${fmtMs(medianMs(s, 'geoblaze', 40, 'cold'))})`,
      met: ratio >= 60,
    });
  }
  const pd = byId('point-daily');
  const pdPrimed = pd && runsAt(pd, 'engine-node', 40)?.primed;
  if (pd && pdPrimed) {
    rows.push({
      target: 'point × 365 dates, 10 points: ≤ 150 KiB read after the catalog and the file header',
      measured: `${fmtBytes(pdPrimed.bytes)} in ${pdPrimed.requests} requests`,
      met: pdPrimed.bytes <= 150 * KiB,
    });
  }
  for (const s of r.scenarios.filter((x) => x.family === 'raster')) {
    const p = runsAt(s, 'engine-node', 40)?.primed;
    if (!p) continue;
    const per = p.requests / s.geometries;
    rows.push({
      target: `${s.id}: ≤ 2 requests per ${kindOf(s)} beyond the header reads`,
      measured: `${p.requests} for ${s.geometries} (${per.toFixed(1)} each)`,
      met: per <= 2,
    });
  }
  for (const s of r.scenarios.filter((x) => x.family === 'station')) {
    // The product design's own engine (DuckDB-WASM) beside the engine, every run: measured, not bounded.
    const wasmCold = medianMs(s, 'duckdb-wasm-chromium', 40, 'cold');
    if (Number.isFinite(wasmCold)) {
      const engCold = medianMs(s, 'engine-chromium', 40, 'cold');
      const wasmWarm = warmMs(s, 'duckdb-wasm-chromium');
      const engWarm = warmMs(s, 'engine-chromium');
      rows.push({
        target: `${s.id}: engine and DuckDB-WASM (a DuckDB file attached over HTTP Range) in the same run, Chromium, 40 ms`,
        measured: `cold ${fmtMs(engCold)} vs ${fmtMs(wasmCold)} (engine ${speed(engCold, wasmCold)}); warm ${fmtMs(engWarm)} vs ${fmtMs(wasmWarm)}`,
        met: Number.isFinite(engCold),
      });
    }
  }
  for (const s of r.scenarios.filter((x) => x.family === 'station')) {
    const warm = warmMs(s, 'engine-chromium');
    const floor = warmMs(s, 'duckdb-native');
    rows.push({
      target: `${s.id}: warm no slower than native DuckDB on local Parquet (≤ ×1)`,
      measured: `${fmtRatio(warm / floor)} (${fmtMs(warm)} vs ${fmtMs(floor)})`,
      met: warm / floor <= 1,
    });
  }
  for (const s of r.scenarios.filter((x) => x.family === 'station')) {
    const links = LINK_IDS.filter((id) => runsAt(s, 'naive-chromium', id) && runsAt(s, 'engine-chromium', id));
    if (links.length === 0) continue;
    const ratio = (id: string) =>
      medianMs(s, 'naive-chromium', id, 'cold') / medianMs(s, 'engine-chromium', id, 'cold');
    const rural = links.includes('150-4mbit') ? ratio('150-4mbit') : NaN;
    rows.push({
      target: `${s.id}: cold in Chromium, never slower than whole files on any link; ≥ ×2 faster at 150 ms, 4 Mbit/s`,
      measured: links
        .map(
          (id) =>
            `${profileName(id)} ${speed(medianMs(s, 'engine-chromium', id, 'cold'), medianMs(s, 'naive-chromium', id, 'cold'))}`,
        )
        .join('; '),
      met: links.every((id) => ratio(id) >= 1) && rural >= 2,
    });
    const h2 = runsAt(s, 'engine-chromium', '40-h2')?.cold;
    if (h2?.length) {
      const trips = med(h2, (x) => x.roundTrips ?? NaN);
      rows.push({
        target: `${s.id}: ≤ 3 sequential round trips after the catalog (HTTP/2, where nothing queues)`,
        measured: `${fmtInt(trips)} (${fmtInt(med(h2, (x) => x.requests))} requests)`,
        met: trips <= 3,
      });
    }
  }
  for (const s of r.scenarios.filter((x) => x.family === 'station')) {
    const bytes = med(runsAt(s, 'engine-chromium', 40)?.cold, archiveBytes);
    const share = bytes / r.dataset.storeBytes;
    rows.push({
      target: `${s.id}: cold, ≤ 5 % of the store's bytes`,
      measured: `${pct(share)} (${fmtBytes(bytes)} of ${fmtBytes(r.dataset.storeBytes)})`,
      met: share <= 0.05,
    });
  }
  for (const [idId, sameId, what] of [
    ['indices-seasons', 'indices-same-hours', 'the demo’s 2 years'],
    ['indices-10-seasons', 'indices-10-same-hours', '10 seasons'],
  ] as const) {
    const idx = byId(idId);
    const same = byId(sameId);
    if (!idx || !same) continue;
    const a = medianMs(idx, 'engine-chromium', 40, 'cold');
    const b = medianMs(same, 'engine-chromium', 40, 'cold');
    rows.push({
      target: `station-indices by season over ${what}, cold in Chromium at 40 ms: within 2× of nearest-station reading the same hours`,
      measured: `${fmtRatio(a / b)} (${fmtMs(a)} vs ${fmtMs(b)})`,
      met: a / b <= 2,
    });
  }
  const cs = r.coldStart.filter((c) => c.first === 'raster');
  if (cs.length) {
    const duck = cs.some((c) => c.runs.some((x) => x.codeFiles.some(isDuckDbWasm)));
    const c40 = cs.find((c) => c.latencyMs === 40) ?? cs[0]!;
    rows.push({
      target: 'first raster answer in Chromium without downloading DuckDB-WASM',
      measured: `${duck ? 'DuckDB-WASM downloaded' : 'not downloaded'}; ${fmtBytes(median(c40.runs.map((x) => x.parts.code.bytes)))} of HTML and JS, answer after ${fmtMs(median(c40.runs.map((x) => x.answerMs)))} (${c40.latencyMs} ms)`,
      met: !duck,
    });
  }
  rows.push({
    target: '`npm run bench` finishes in ≤ 10 minutes on 2 cores',
    measured: `${(r.durationS / 60).toFixed(1)} min${r.dataset.demoBuildS ? ` (demo dataset built in this run: ${r.dataset.demoBuildS.toFixed(0)} s)` : ' (demo dataset cached)'}`,
    met: r.durationS <= 600,
  });
  return rows;
}

/** Whether a fetched code file is DuckDB-WASM (its module or its worker). */
export function isDuckDbWasm(path: string): boolean {
  return /duckdb[^/]*\.wasm$/.test(path) || /duckdb-browser[^/]*\.worker/.test(path);
}

/** 'point' or 'polygon' for a raster scenario (the first word of its id). */
function kindOf(s: ScenarioResult): string {
  return s.id.split('-')[0]!;
}

function coldRuns(m: MethodResult | undefined, key: ProfileKey) {
  return m?.latencies.find((l) => profileOfRuns(l) === profileKey(key));
}

/** Cold requests/bytes of a method: at 40 ms if it ran there, else the first latency it ran at. */
function coldCost(m: MethodResult): { requests: number; bytes: number } {
  const l = coldRuns(m, 40) ?? m.latencies[0];
  return { requests: med(l?.cold, (x) => x.requests), bytes: med(l?.cold, (x) => x.bytes) };
}

function rasterTable(r: BenchResults, s: ScenarioResult): string[] {
  const out: string[] = [];
  out.push(`**${s.title}**`, '');
  out.push(
    "| method | requests | bytes | cold, 0 ms | cold, 40 ms | warm | peak memory | its time ÷ engine's, cold 40 ms (0 ms) | runs |",
  );
  out.push('|---|---:|---:|---:|---:|---:|---:|---:|---|');
  const eng = method(s, 'engine-node');
  for (const m of s.methods) {
    const c = coldCost(m);
    const cold0 = medianMs(s, m.method, 0, 'cold');
    const cold40 = medianMs(s, m.method, 40, 'cold');
    const warm = median(m.latencies.flatMap((l) => l.warm.map((x) => x.ms)));
    let ratio = '';
    if (eng && m.method !== 'engine-node' && m.method !== 'engine-chromium') {
      const r40 = cold40 / medianMs(s, 'engine-node', 40, 'cold');
      const r0 = cold0 / medianMs(s, 'engine-node', 0, 'cold');
      ratio = `${fmtRatio(r40)}${Number.isFinite(r0) ? ` (${fmtRatio(r0)})` : ''}`;
    }
    out.push(
      `| ${m.label} | ${fmtInt(c.requests)} | ${fmtBytes(c.bytes)} | ${fmtMs(cold0)} | ${fmtMs(cold40)} | ${fmtMs(warm)} | ${fmtMemory(m)} | ${ratio} | ${runsLabel(m)} |`,
    );
  }
  const p = runsAt(s, 'engine-node', 40);
  if (p?.primed && p.prime) {
    out.push(
      '',
      `Engine cost split (40 ms): catalog and header of the file ${p.prime.requests} requests / ${fmtBytes(p.prime.bytes)}; then the query itself **${p.primed.requests} request${p.primed.requests === 1 ? '' : 's'} / ${fmtBytes(p.primed.bytes)}** for ${s.geometries} ${kindOf(s)}s, ${fmtMs(p.primed.ms)}.`,
    );
  }
  const gt = method(s, 'geotiff');
  const gb = method(s, 'geoblaze');
  if (eng && gt && gb) {
    const e = coldCost(eng);
    out.push(
      '',
      `Cold, the engine makes ${compared(coldCost(gt).requests, e.requests, 'requests', 'geotiff.js')} and ${compared(coldCost(gb).requests, e.requests, 'requests', 'geoblaze')}, and moves ${compared(coldCost(gt).bytes, e.bytes, 'bytes', 'geotiff.js')} and ${compared(coldCost(gb).bytes, e.bytes, 'bytes', 'geoblaze')} (its bytes include the ${fmtBytes(r.dataset.catalogBytes)} catalog.json, which the baselines, given file URLs, do not read).`,
    );
  }
  out.push('');
  return out;
}

/** Peak memory with its footnote mark; growth under 1 MiB is shown as such. */
function fmtMemory(m: MethodResult): string {
  const v = m.memoryKind === 'node-rss-growth' && m.peakMemory < MiB ? '< 1 MiB' : fmtBytes(m.peakMemory);
  return `${v} ${m.memoryKind === 'renderer-peak-rss' ? '²' : '¹'}`;
}

/** "×N fewer <what> than <other>" when the engine needs less, "×N more … than" when more, "as many … as" within 5 %. */
function compared(other: number, engine: number, what: string, name: string): string {
  const ratio = other / engine;
  if (!Number.isFinite(ratio)) return `— ${what} than ${name}`;
  if (Math.abs(ratio - 1) < 0.05) return `as many ${what} as ${name}`;
  return ratio > 1
    ? `${fmtRatio(ratio)} fewer ${what} than ${name}`
    : `${fmtRatio(1 / ratio)} more ${what} than ${name}`;
}

/** "×N faster" / "×N slower" / "about as fast" for engine time `a` against baseline time `b`. */
function speed(a: number, b: number): string {
  const r = b / a;
  if (!Number.isFinite(r)) return '—';
  if (Math.abs(r - 1) < 0.05) return 'about as fast';
  return r > 1 ? `${fmtRatio(r)} faster` : `${fmtRatio(1 / r)} slower`;
}

function runsLabel(m: MethodResult): string {
  return m.latencies
    .map(
      (l) =>
        `${profileName(profileOfRuns(l))}: ${l.cold.length} cold${l.warm.length ? ` + ${l.warm.length} warm` : ''}`,
    )
    .join('; ');
}

function stationTable(r: BenchResults, s: ScenarioResult): string[] {
  const out: string[] = [];
  out.push(`**${s.title}**`, '');
  out.push(
    '| method | code | index (catalog, station index, coverage) | data (station files) | share of the archive | cold, 0 ms or local | cold, 40 ms | warm | peak memory | runs |',
  );
  out.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  const cell = (
    runs: readonly AnyRun[] | undefined,
    f: (x: AnyRun) => { requests: number; bytes: number } | undefined,
  ) => `${fmtInt(med(runs, (x) => f(x)?.requests ?? NaN))} / ${fmtBytes(med(runs, (x) => f(x)?.bytes ?? NaN))}`;
  for (const m of s.methods) {
    const l = coldRuns(m, 40) ?? m.latencies[0];
    const local = m.latencies.some((x) => x.latencyMs === null);
    const cold = local ? medianMs(s, m.method, null, 'cold') : NaN;
    const warm = median(m.latencies.flatMap((x) => x.warm.map((w) => w.ms)));
    const share = med(l?.cold, archiveBytes) / r.dataset.storeBytes;
    const index = (x: AnyRun) =>
      x.parts
        ? {
            requests: x.parts.catalog.requests + x.parts.index.requests,
            bytes: x.parts.catalog.bytes + x.parts.index.bytes,
          }
        : undefined;
    out.push(
      `| ${m.label} | ${local ? 'local' : cell(l?.cold, (x) => x.parts?.code)} | ${local ? 'local' : cell(l?.cold, index)} | ${local ? 'local' : cell(l?.cold, (x) => x.parts?.data)} | ${local ? '' : pct(share)} | ${local ? fmtMs(cold) : fmtMs(medianMs(s, m.method, 0, 'cold'))} | ${local ? '' : fmtMs(medianMs(s, m.method, 40, 'cold'))} | ${fmtMs(warm)} | ${fmtMemory(m)} | ${runsLabel(m)} |`,
    );
  }
  const e40 = runsAt(s, 'engine-chromium', 40);
  const warm = warmMs(s, 'engine-chromium');
  const floor = warmMs(s, 'duckdb-native');
  const naive = medianMs(s, 'naive-chromium', 40, 'cold');
  const engCold = medianMs(s, 'engine-chromium', 40, 'cold');
  const naiveBytes = med(runsAt(s, 'naive-chromium', 40)?.cold, archiveBytes);
  const engBytes = med(e40?.cold, archiveBytes);
  const reads = e40?.cold[0]?.storeReads;
  out.push(
    '',
    `Cells: requests / bytes of a cold query from a freshly loaded page${idleWords(r)} (medians; the page's own code, its engine Worker's included, is loaded before the clock starts, so *code* is only what the engine loads on demand). Ratios: engine warm / native DuckDB warm **${fmtRatio(warm / floor)}**; at 40 ms, engine cold vs whole files downloaded: ${speed(engCold, naive)} (${fmtMs(engCold)} vs ${fmtMs(naive)}); archive bytes read cold: ${fmtBytes(engBytes)} vs ${fmtBytes(naiveBytes)} whole, ${pct(engBytes / r.dataset.storeBytes)} of the ${fmtBytes(r.dataset.storeBytes)} archive` +
      (reads
        ? `, of which ${fmtBytes(reads.distinctBytes)} distinct (largest single read ${fmtBytes(reads.largestBytes)})`
        : '') +
      `. The loopback has no bandwidth limit, so whole files cost little here; the ${fmtBytes(naiveBytes - engBytes)} the engine does not fetch would take ${((8 * (naiveBytes - engBytes)) / 50e6).toFixed(1)} s more at 50 Mbit/s (arithmetic on the measured bytes, not measured).`,
    '',
  );
  return out;
}

/** How long a loaded page was left idle before a station query's cold run, in words ("" for none). */
function idleWords(r: BenchResults): string {
  const ms = r.setup.stationSettleMs ?? 0;
  return ms > 0
    ? `, then left idle for ${ms >= 1000 ? `${ms / 1000} s` : fmtMs(ms)} as a person looks at the map before drawing (both Workers read the station index once idle for 400 ms; "Sent at once" below gives the same queries without it)`
    : '';
}

/** Station queries sent as the Worker first answers, no idle: engine against whole files, at 40 ms. */
function atOnceSection(r: BenchResults): string[] {
  const rows = r.scenarios.filter((s) => s.atOnce && s.atOnce.engine.length > 0);
  if (rows.length === 0) return [];
  const list = (xs: number[]) => xs.map((x) => Math.round(x)).join(', ');
  return [
    "**Sent at once.** The same cold queries, 40 ms, with the query sent as soon as the engine Worker has answered its first message (no idle): the first query then also pays the index read and parse and the Worker's cold code, in both methods. Runs alternate engine and whole files.",
    '',
    '| query | engine (Chromium) | whole files downloaded (Chromium) | engine vs whole files |',
    '|---|---:|---:|---|',
    ...rows.map(
      (s) =>
        `| ${s.id} | ${fmtMs(median(s.atOnce!.engine))} (${list(s.atOnce!.engine)}) | ${fmtMs(median(s.atOnce!.naive))} (${list(s.atOnce!.naive)}) | ${speed(median(s.atOnce!.engine), median(s.atOnce!.naive))} |`,
    ),
    '',
  ];
}

/**
 * Every scenario on every link it ran on: cold median time, requests and the sequential round
 * trips after the catalog (bench/link.ts), with the engine's ratio to each baseline per link.
 */
function linkSection(r: BenchResults): string[] {
  const rows = r.scenarios.filter((s) => s.family !== 'indices');
  if (!rows.some((s) => s.methods.some((m) => m.latencies.some((l) => profileOfRuns(l) === '150-4mbit')))) return [];
  const out = [
    '## Links: 40 ms, 20 Mbit/s, a rural 4 Mbit/s and HTTP/2',
    '',
    `The same cold queries over four links (bench/link.ts): ${PROFILES.filter((p) => LINK_IDS.includes(p.id))
      .map((p) => `**${p.label}**`)
      .join(
        ', ',
      )}. A bandwidth is one rate shared by every request at once (a relay in front of the bench server releases the bytes at that rate); HTTP/2 is real (TLS with a throwaway certificate), so Chromium sends every request at once over one connection, and Node clients get the same 100 requests at once. Each cell: median cold time, requests, and the sequential round trips after catalog.json (the busy periods of the run's requests: the phases that wait for the one before, bench/link.ts). Station rows: from a loaded page in Chromium (loaded: its engine Worker has answered once, so the Worker's script is not part of the time${idleWords(r).replace(/^, /, '; ')}); raster rows: the engine in Node and in Chromium, and geotiff.js once on the rural link.`,
    '',
    `| query | method | ${LINK_IDS.map(profileName).join(' | ')} |`,
    `|---|---|${LINK_IDS.map(() => '---:').join('|')}|`,
  ];
  for (const s of rows) {
    for (const m of s.methods) {
      if (!m.latencies.some((l) => LINK_IDS.includes(profileOfRuns(l)) && profileOfRuns(l) !== '40')) continue;
      const cells = LINK_IDS.map((id) => {
        const c = runsAt(s, m.method, id)?.cold;
        if (!c?.length) return '—';
        return `${fmtMs(med(c, (x) => x.ms))} (${fmtInt(med(c, (x) => x.requests))} req, ${fmtInt(med(c, (x) => x.roundTrips ?? NaN))} rt)`;
      });
      out.push(`| ${s.id} | ${m.label} | ${cells.join(' | ')} |`);
    }
  }
  out.push('');
  const station = rows.filter((s) => s.family === 'station');
  if (station.length) {
    out.push(
      '| query | ' + LINK_IDS.map((id) => `engine vs whole files, ${profileName(id)}`).join(' | ') + ' |',
      `|---|${LINK_IDS.map(() => '---').join('|')}|`,
    );
    for (const s of station) {
      out.push(
        `| ${s.id} | ${LINK_IDS.map((id) => speed(medianMs(s, 'engine-chromium', id, 'cold'), medianMs(s, 'naive-chromium', id, 'cold'))).join(' | ')} |`,
      );
    }
    out.push('');
  }
  return out;
}

/** The station-indices extension against the nearest-station query that reads the same hours (docs/indices.md). */
function indicesSection(r: BenchResults): string[] {
  const rows = r.scenarios.filter((s) => s.family === 'indices');
  if (rows.length === 0) return [];
  const out = [
    '## Station indices',
    '',
    'The extension `/api/station-indices/` (docs/indices.md) computes its indices from the hours nearest-station would return: each indices row is followed by that query for the same point and hours, so the difference is the computation and the answer. The ten-season pair runs on the seasons dataset (one station, 2013–2024 hourly, built by the station build from the demo generator, bench/dataset.ts); one nearest-station request may ask for two years at most, so its row is five requests sent one after another, times summed. Engine in Chromium, cold from a loaded page and warm, at 40 ms per request.',
    '',
    '| query | requests / bytes (cold, 40 ms) | cold, 40 ms | warm |',
    '|---|---:|---:|---:|',
  ];
  for (const s of rows) {
    const c = runsAt(s, 'engine-chromium', 40)?.cold;
    out.push(
      `| ${s.title} | ${fmtInt(med(c, (x) => x.requests))} / ${fmtBytes(med(c, (x) => x.bytes))} | ${fmtMs(medianMs(s, 'engine-chromium', 40, 'cold'))} | ${fmtMs(warmMs(s, 'engine-chromium'))} |`,
    );
  }
  out.push('');
  return out;
}

function coldStartTable(r: BenchResults): string[] {
  const out: string[] = [];
  const gz = new Map(r.page.map((f) => [`/app/${f.name}`, f.gzipBytes]));
  out.push(
    '| first query | latency | page loaded | first answer | JS + WASM downloaded (gzip ≈) | DuckDB-WASM? | data | requests | renderer peak | runs |',
  );
  out.push('|---|---:|---:|---:|---:|---|---:|---:|---:|---:|');
  for (const c of r.coldStart) {
    const code = median(c.runs.map((x) => x.parts.code.bytes));
    const codeGz = median(c.runs.map((x) => x.codeFiles.reduce((sum, p) => sum + (gz.get(p) ?? 0), 0)));
    const data = median(c.runs.map((x) => x.bytes - x.parts.code.bytes));
    const duck = c.runs.some((x) => x.codeFiles.some(isDuckDbWasm));
    out.push(
      `| ${c.first === 'raster' ? 'point, 10 × 365 days' : 'nearest-station, 10 × 5 × 366 days'} | ${c.latencyMs} ms | ${fmtMs(median(c.runs.map((x) => x.loadMs)))} | **${fmtMs(median(c.runs.map((x) => x.answerMs)))}** | ${fmtBytes(code)} (${fmtBytes(codeGz)}) | ${duck ? 'yes' : 'no'} | ${fmtBytes(data)} | ${fmtInt(median(c.runs.map((x) => x.requests)))} | ${fmtBytes(c.peakMemory)} | ${c.runs.length} |`,
    );
  }
  out.push('');
  return out;
}

function agreementTable(r: BenchResults): string[] {
  const out: string[] = [
    '| scenario | compared | values | equal | differ (max \\|Δ\\|, mean \\|Δ\\|) | value vs null | null vs value |',
    '|---|---|---:|---:|---|---:|---:|',
  ];
  const notes = new Set<string>();
  for (const s of r.scenarios) {
    for (const a of s.agreement) {
      const x = a.result;
      const differ = x.values - x.equal - x.missingInOther - x.extraInOther;
      out.push(
        `| ${s.id} | ${labelOf(s, a.other)} vs ${labelOf(s, a.reference)} | ${fmtInt(x.values)} | ${fmtInt(x.equal)} | ${differ ? `${fmtInt(differ)} (${x.maxAbsDiff.toPrecision(3)}, ${x.meanAbsDiff.toPrecision(3)})` : '0'} | ${fmtInt(x.missingInOther)} | ${fmtInt(x.extraInOther)} |`,
      );
      if (a.note) notes.add(a.note);
    }
  }
  out.push(
    '',
    '"value vs null": the engine has a value where the other has none.',
    ...[...notes].map((n) => `Polygons: ${n}`),
    '',
  );
  for (const s of r.scenarios) {
    const gb = s.agreement.find((a) => a.other === 'geoblaze');
    if (!gb || !s.id.startsWith('polygon')) continue;
    const per = Object.values(gb.result.byKey).map((k, i) => {
      const unit = s.id.endsWith('daily') ? ' °C' : ' m/s';
      return `${POLYGON_LABELS[i] ?? `polygon ${i + 1}`}: ${k.values - k.equal} of ${k.values} differ, max ${k.maxAbsDiff.toFixed(3)}${unit}, mean ${k.meanAbsDiff.toFixed(4)}${unit}${k.missingInOther ? `, ${k.missingInOther} without a value` : ''}`;
    });
    out.push(`geoblaze vs the engine, ${s.id}, per polygon: ${per.join('; ')}.`, '');
  }
  return out;
}

function labelOf(s: ScenarioResult, m: Method): string {
  return method(s, m)?.label ?? m;
}

/** Why each missed target was missed and what would reach it, with this run's numbers. */
function missedNotes(r: BenchResults, targets: TargetRow[]): string[] {
  const out: string[] = [];
  const missed = targets.filter((t) => !t.met);
  if (missed.length === 0) return ['Every target is met in this run.', ''];
  const stations = r.scenarios.filter((s) => s.family === 'station');
  if (missed.some((t) => t.target.includes('5 %'))) {
    const missedIds = missed.filter((t) => t.target.includes('5 %')).map((t) => t.target.split(':')[0]!);
    const met = stations.filter((s) => !missedIds.includes(s.id)).map((s) => s.id);
    const split = stations
      .filter((s) => missedIds.includes(s.id))
      .map((s) => {
        const c = runsAt(s, 'engine-chromium', 40)?.cold;
        return `${s.id}: catalog ${fmtBytes(med(c, (x) => x.parts?.catalog.bytes ?? NaN))}, index and coverage ${fmtBytes(med(c, (x) => x.parts?.index.bytes ?? NaN))}, station files ${fmtBytes(med(c, (x) => x.parts?.data.bytes ?? NaN))} in ${fmtInt(med(c, (x) => x.parts?.data.requests ?? NaN))} requests`;
      });
    out.push(
      '**Cold reads of the station archive (≤ 5 %).** ' +
        missed
          .filter((t) => t.target.includes('5 %'))
          .map((t) => `${t.target.split(':')[0]}: ${t.measured}`)
          .join('; ') +
        (met.length ? ` (met: ${met.join(', ')})` : '') +
        `. Where the bytes go: ${split.join('; ')}. Why: the demo archive is small (130 stations × 2 years), so the ten station-years of a query are a large part of it, and each station file read costs its footer and the column chunks of the row groups that overlap the year (a row group holds 4,096 hours or 2,048 days, so a year touches more rows than it asks for). The archive's own byte targets are the ones in the scale section below (all bytes ≤ 1.5 MB, data ≤ 2× the answer's column chunks); this 5 % target predates the per-station archive.`,
      '',
    );
  }
  if (missed.some((t) => t.target.includes('4×'))) {
    const lines = stations.map((s) => {
      const chromium = warmMs(s, 'engine-chromium');
      const node = warmMs(s, 'engine-node-native');
      const floor = warmMs(s, 'duckdb-native');
      return `| ${s.id} | ${fmtMs(chromium)} | ${fmtMs(node)} | ${fmtMs(floor)} | ${fmtRatio(chromium / node)} | ${fmtRatio(node / floor)} | ${fmtRatio(chromium / floor)} |`;
    });
    out.push(
      '**Warm station queries (≤ 4× native DuckDB).** ' +
        missed
          .filter((t) => t.target.includes('4×'))
          .map((t) => `${t.target.split(':')[0]}: ${t.measured}`)
          .join('; ') +
        '. Where the warm time goes (medians; each factor is the ratio of neighbouring columns):',
      '',
      '| scenario | engine, Chromium | engine, Node, local files | hand-written SQL, native DuckDB | browser factor | reader factor | total |',
      '|---|---:|---:|---:|---:|---:|---:|',
      ...lines,
      '',
      "Why: the browser factor is the page → engine Worker round trip (the answer is structured-cloned to the page) and V8 in a renderer against V8 in Node; the reader factor is hyparquet decoding the cached column chunks again on every query (warm reads make no requests, but the engine caches bytes, not decoded rows) against native DuckDB's multi-threaded Parquet reader.",
      '',
    );
  }
  if (missed.some((t) => t.target.includes('geoblaze'))) {
    out.push(
      `**Rasters vs geoblaze (≥ 30×).** ${missed
        .filter((t) => t.target.includes('geoblaze'))
        .map((t) => `${t.target}: ${t.measured}`)
        .join('; ')}. See the raster tables for where the time goes.`,
      '',
    );
  }
  if (missed.some((t) => t.target.includes('beyond the header'))) {
    out.push(
      `**Requests per geometry.** ${missed
        .filter((t) => t.target.includes('beyond the header'))
        .map((t) => `${t.target}: ${t.measured}`)
        .join('; ')}.`,
      '',
    );
  }
  if (missed.some((t) => t.target.includes('DuckDB-WASM')))
    out.push(
      '**First raster answer.** DuckDB-WASM was downloaded before the first raster answer; nothing in the engine should load it any more.',
      '',
    );
  if (missed.some((t) => t.target.includes('10 minutes')))
    out.push(
      `**Run time.** The run took ${(r.durationS / 60).toFixed(1)} minutes; the load average was ${r.environment.loadAverage.start} at the start (other work on the machine). Fewer runs of the slow baselines (bench/run.ts, FULL) would bring it down.`,
      '',
    );
  return out;
}

/** Says how many runs each median is of (from the run's own settings), and why the slow baselines have fewer. */
function runsSentence(r: BenchResults): string {
  const gb = r.scenarios.find((s) => s.id === 'point-daily');
  const gbMs = gb ? medianMs(gb, 'geoblaze', 40, 'cold') : NaN;
  const list = Object.entries(r.setup.runs)
    .map(
      ([name, byLatency]) =>
        `${name} ${Object.entries(byLatency)
          .map(
            ([l, n]) => `${n.cold}${n.warm ? `+${n.warm}` : ''}${l === 'local' ? ' local' : ` at ${profileName(l)}`}`,
          )
          .join(', ')}`,
    )
    .join('; ');
  return `Runs (cold+warm): ${list}. Slow baselines run fewer times so that the whole run fits in 10 minutes: geoblaze on the per-date files takes ${fmtMs(gbMs)} per query, so it runs once, at 40 ms only — read its ratios as one sample, not a median.`;
}

/** Extracts the `## <name>` sections of `doc` named in {@link KEPT_SECTIONS}, in the order they appear. */
export function keptSections(doc: string): string {
  const parts = doc.split(/^(?=## )/m);
  return parts
    .filter((p) => KEPT_SECTIONS.some((name) => p.startsWith(`## ${name}\n`)))
    .map((p) => p.trimEnd())
    .join('\n\n');
}

/** The whole of docs/performance.md for `results`, keeping the hand-written sections of `currentDoc`. */
export function renderPerformanceDoc(results: BenchResults, currentDoc: string): string {
  const r = results;
  const targets = evaluateTargets(r);
  const env = r.environment;
  const raster = r.scenarios.filter((s) => s.family === 'raster');
  const station = r.scenarios.filter((s) => s.family === 'station');
  const store = fmtBytes(r.dataset.storeBytes);
  const lines: string[] = [
    '# Performance',
    '',
    `Every number and ratio in the first part of this page comes from one run of \`npm run bench\` (bench/run.ts; raw numbers in bench/results.json), started ${r.startedAt.slice(0, 16).replace('T', ' ')} UTC: ${env.cpus} × ${env.cpuModel}, ${env.memoryGB} GB, Node ${env.node}, ${env.chromium}, 1-minute load average ${env.loadAverage.start} at the start and ${env.loadAverage.end} at the end (the bench's own Chromium and DuckDB threads count in the latter)${r.setup.quick ? ' — **a `--quick` run: one repetition each, for smoke-testing only**' : ''}. The run took ${(r.durationS / 60).toFixed(1)} minutes.`,
    '',
    'Setup: the demo dataset (`climate-query demo`: 130 stations, hourly 2023–2024 with derived daily and monthly files; 16 raster layers) and the same raster values stored the conventional way — one COG per date, written by GDAL\'s COG driver through gdal3.js (DEFLATE + predictor, GDAL\'s default 512 px tiles) — served by a local HTTP server (bench/server.ts, wrapping `serveStatic`) that answers Range and HEAD, counts every request and body byte, adds **0 ms or 40 ms per request** and serves **at most 6 requests at once**: a browser over HTTP/1.1 to a CDN (the section "Links" adds a bandwidth limit, a rural link and HTTP/2). The server does not compress; sizes are raw bytes. "Cold" is nothing cached (a new engine, a new browser context, a new native DuckDB instance); "warm" is the same query again on the same engine after one unmeasured run. Times are medians.',
    '',
    runsSentence(r),
    '',
    "¹ Node: growth of the child process's resident memory over its measured runs (peak RSS minus RSS after a one-period warm-up query; the peak mark is reset there). ² Chromium: peak RSS of the page's renderer process, which also runs the engine Worker.",
    '',
    '## Targets',
    '',
    'Ratios in the same run, at 40 ms per request unless a link is named (warm queries make no requests).',
    '',
    ...targetTable(targets),
    '',
    ...missedNotes(r, targets),
    '## Rasters: point and polygon',
    '',
    `The engine reads the layer as the project stores it (one Zarr store per year, the \`zarr\` layout the build chooses for long daily stacks: one object per 8 × 8 px chunk holding all 366 dates, and a preview per date, docs/layers.md, "Layouts" — ${fmtBytes(r.dataset.dailyRasterBytes)} for 366 days of \`temp/mean\`) through \`createClimateEngine\` with fetch Range reads — the code the browser's engine Worker runs — in Node, like the baselines, so the ratios compare layouts and libraries on the same runtime; the "engine (Chromium)" row is the same query in the browser. Baselines read ${r.dataset.baselines.temp?.files ?? '?'} per-date COGs (${fmtBytes(r.dataset.baselines.temp?.bytes ?? NaN)} in all): geotiff.js ${r.environment.packages.geotiff} with \`fromUrl\` per file and one \`readRasters\` window per file covering every pixel needed (polygon statistics with the engine's exact-coverage maths, so answers must be identical); geoblaze ${r.environment.packages.geoblaze} with \`identify\` per point and file and \`mean\` per polygon and file, as its API is meant to be used. All files of a query are worked on at once; the server lets 6 requests through at a time.`,
    '',
    ...raster.flatMap((s) => rasterTable(r, s)),
    '## Stations: nearest-station and poly-aggregate',
    '',
    `The engine runs as users run it: in Chromium, the page's engine Worker reading the ${store} station archive (docs/data.md: one Parquet file per station and scale, ${Object.entries(
      r.dataset.parquetBytes,
    )
      .map(([k, v]) => `${k} ${fmtBytes(v)}`)
      .join(
        ', ',
      )}) with hyparquet over HTTP Range requests (bench/browser/, built by Vite as a production bundle and served with the dataset). Baselines: the same engine downloading every file it touches whole (the naive way, in Chromium); **DuckDB-WASM** (${r.environment.packages['@duckdb/duckdb-wasm'] ?? '1.32.0'}, the engine the product's design named for station data) in the same page, with the same rows in one DuckDB database file (tables per time scale, sorted by station and time, written by native DuckDB with storage version v1.0.0) attached read-only over HTTP Range with range reads switched on (\`forceFullHTTPReads: false\`, \`allowFullHTTPReads: false\`) — not Parquet, because DuckDB-WASM's Parquet reader is an extension it downloads from DuckDB's own site at run time, which a machine without that site (this one, or a farm offline) cannot reach; it is instantiated, its 34 MB WASM downloaded, the file attached and the station index read as the page loads, before the clock starts, as the engine's Worker reads ahead, so its *data* cell is the query's own reads; and native DuckDB (@duckdb/node-api ${r.environment.packages['@duckdb/node-api']}, 2 threads) on the same local Parquet files with hand-written SQL — the compute floor. Stations are chosen by the engine's own functions in every method. A diagnostic row runs the engine in Node on the local files, to split the warm time between the browser and the reader. Kinds: *code* (JS the engine loads on demand), *index* (catalog.json, stations/index.parquet, coverage.jsonl lines), *data* (station files: footers and column chunks).`,
    '',
    ...station.flatMap((s) => stationTable(r, s)),
    ...atOnceSection(r),
    ...indicesSection(r),
    ...linkSection(r),
    '## Browser cold start',
    '',
    'A fresh Chromium context opens the bench page; its script sends the query as it starts. Times from navigation start. "JS + WASM" is every code file fetched (HTML, JS, WASM) before the answer, raw, with what gzip -6 makes of the same files in brackets (a CDN that compresses would send about that).',
    '',
    ...coldStartTable(r),
    '## Answer equality',
    '',
    "Each baseline's answer compared value by value with the engine's (first cold run). Tolerances: points 10⁻⁹; polygon means half the engine's rounding step (it rounds means to three decimals finer than the stored step); station values 10⁻⁹.",
    '',
    ...agreementTable(r),
    '## How to run',
    '',
    '`npm run bench` (≤ 10 minutes on 2 cores; needs Chromium at /usr/bin/chromium or `CHROMIUM_PATH`). It builds the demo dataset and the per-date COGs into `node_modules/.cache/climate-query-bench/` on first use (`--rebuild` to redo), builds the bench page with Vite, runs every measurement one after another, then rewrites bench/results.json and the part of this page above the scale section. `npm run bench -- --quick` runs everything once (smoke test; the numbers are not for the page). `npx tsx bench/report.ts` re-renders this page from bench/results.json.',
    '',
    '`npm run bench -- --scale` (≤ 30 minutes on 2 cores) is a separate run: it generates the two synthetic input archives, builds them with `climate-query build` and measures them in Chromium (inputs and built archives cached under bench/.cache/, about 1 GB; the builds spill up to about 6 GB to the temp folder; `--rebuild` rebuilds the archives). It rewrites bench/scale-results.json and only the scale section of this page, and exits non-zero when an answer differs from SQL over the inputs. `npm run bench -- --scale --scale-size small` runs the same code on small archives in about a minute (development; written to bench/.cache/scale-out/, not to this page).',
    '',
    "`npm run bench -- --real-size` (≈ 15 minutes the first time, which generates 1.7 GB of inputs and builds them; about 1 minute once cached) measures climate layers at the size of the real service: it rewrites bench/raster-scale-results.json and only its own section of this page, and exits non-zero when an answer differs from native GDAL's reads of the inputs; `--quick` runs each query once and writes to the cache folder instead.",
    '',
    'Below: the real-size section (rewritten by `--real-size`), the scale section (rewritten by `--scale`), then sections measured by the test suite and kept as written.',
    '',
  ];
  const kept = keptSections(currentDoc);
  return `${lines.join('\n')}\n${kept ? `${kept}\n` : ''}`;
}

// `npx tsx bench/report.ts`: re-render docs/performance.md from bench/results.json.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const results = JSON.parse(await readFile(`${root}bench/results.json`, 'utf8')) as BenchResults;
  const doc = await readFile(`${root}docs/performance.md`, 'utf8');
  await writeFile(`${root}docs/performance.md`, renderPerformanceDoc(results, doc));
  process.stdout.write('docs/performance.md re-rendered from bench/results.json\n');
}
