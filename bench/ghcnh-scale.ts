/**
 * `npm run bench -- --ghcnh-scale [--stations N] [--years Y]`: `climate-query import ghcnh` of an
 * archive the size of a region's hourly network (default 600 stations × 10 years: 6,000
 * `GHCNh_<id>_<year>.psv` files, a report every hour), under GNU time: wall time, CPU, peak RSS and
 * rows a second, and the build it ends in. The files have GHCNh's header and per-variable columns
 * (value, measurement, quality, report type, source, source station) for the nine variables the
 * importer reads or names, with values drawn from a seeded generator (a daily and seasonal cycle,
 * some failed quality codes, calm winds, traces of rain). Written once into the bench cache.
 * The section "Import of GHCNh at network size" of docs/performance.md is rewritten from the run.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { cacheDir, REPO } from './dataset.ts';
import { hostInfo } from './results.ts';
import { parseGnuTime } from './scale-build.ts';

const VARS = [
  'temperature',
  'dew_point_temperature',
  'station_level_pressure',
  'sea_level_pressure',
  'wind_direction',
  'wind_speed',
  'wind_gust',
  'precipitation',
  'relative_humidity',
];
const SUFFIXES = ['', '_Measurement_Code', '_Quality_Code', '_Report_Type', '_Source_Code', '_Source_Station_ID'];
const HEADER = [
  'STATION',
  'Station_name',
  'DATE',
  'Year',
  'Month',
  'Day',
  'Hour',
  'Minute',
  'LATITUDE',
  'LONGITUDE',
  'ELEVATION',
  ...VARS.flatMap((v) => SUFFIXES.map((x) => `${v}${x}`)),
];

export const GHCNH_SCALE_HEADING = 'Import of GHCNh at network size (npm run bench -- --ghcnh-scale)';

/** A seeded value in [0, 1) from integers (no state: any file can be written alone). */
function hash01(a: number, b: number, c: number): number {
  let h = (a * 374_761_393 + b * 668_265_263 + c * 2_147_483_647) | 0;
  h = Math.imul(h ^ (h >>> 13), 1_274_126_177);
  return ((h ^ (h >>> 16)) >>> 0) / 4_294_967_296;
}

/** Station `s`'s id and place: a grid over the Western Cape. */
function station(s: number): { id: string; lat: number; lon: number; elev: number } {
  return {
    id: `SFX${String(s).padStart(8, '0')}`,
    lat: -31.5 - (s % 30) * 0.1,
    lon: 17.9 + Math.floor(s / 30) * 0.2,
    elev: 20 + (s % 17) * 40,
  };
}

/** Writes station `s`'s year `y` as NOAA names and lays it out: a report at every hour, UTC. */
async function writeYear(dir: string, s: number, y: number): Promise<number> {
  const st = station(s);
  const path = join(dir, `GHCNh_${st.id}_${y}.psv`);
  const out = createWriteStream(`${path}.partial`);
  const lines: string[] = [HEADER.join('|')];
  let rows = 0;
  const flush = async () => {
    if (!out.write(`${lines.join('\n')}\n`)) await once(out, 'drain');
    lines.length = 0;
  };
  for (let t = Date.UTC(y, 0, 1); t < Date.UTC(y + 1, 0, 1); t += 3_600_000) {
    const d = new Date(t);
    const hour = d.getUTCHours();
    const doy = (t - Date.UTC(y, 0, 1)) / 86_400_000;
    const r = hash01(s, t / 3_600_000, 7);
    const temp = 17 + 6 * Math.cos(((doy - 20) / 365) * 2 * Math.PI) + 5 * Math.sin(((hour - 9) / 24) * 2 * Math.PI);
    const calm = r < 0.05;
    const rain = r > 0.93 ? ((r - 0.93) * 60).toFixed(1) : r > 0.9 ? '0' : '';
    const row: Record<string, string> = {
      STATION: st.id,
      Station_name: `STATION ${s}`,
      DATE: d.toISOString().slice(0, 19),
      Year: String(y),
      Month: String(d.getUTCMonth() + 1),
      Day: String(d.getUTCDate()),
      Hour: String(hour),
      Minute: '0',
      LATITUDE: String(st.lat),
      LONGITUDE: String(st.lon),
      ELEVATION: String(st.elev),
      temperature: (temp + r * 2).toFixed(1),
      temperature_Quality_Code: r < 0.01 ? '3' : '1',
      temperature_Report_Type: 'FM-15',
      temperature_Source_Code: '343',
      dew_point_temperature: (temp - 6 + r * 3).toFixed(1),
      dew_point_temperature_Quality_Code: '1',
      station_level_pressure: (1000 - st.elev / 9).toFixed(1),
      sea_level_pressure: (1013 + r * 8).toFixed(1),
      wind_direction: calm ? '999' : String(Math.floor(r * 36) * 10),
      wind_direction_Measurement_Code: calm ? 'C-Calm' : 'N-Normal',
      wind_speed: calm ? '0.0' : (1 + r * 9).toFixed(1),
      wind_gust: r > 0.8 ? (12 + r * 6).toFixed(1) : '',
      precipitation: rain,
      precipitation_Measurement_Code: rain === '0' ? 'T' : '',
      relative_humidity: Math.round(50 + r * 45).toString(),
    };
    lines.push(HEADER.map((c) => row[c] ?? '').join('|'));
    rows++;
    if (lines.length >= 2048) await flush();
  }
  await flush();
  out.end();
  await once(out, 'finish');
  await rename(`${path}.partial`, path);
  return rows;
}

/** What one run measured (bench/ghcnh-scale-results.json). */
export interface GhcnhScaleResults {
  startedAt: string;
  environment: ReturnType<typeof hostInfo> & { loadAverage: { start: number; end: number } };
  stations: number;
  years: number;
  files: number;
  inputBytes: number;
  inputRows: number;
  wallS: number;
  cpuS: number;
  peakRssBytes: number;
  datasetBytes: number;
  command: string;
  /** Set when the import did not finish: its exit and what it said; the time and memory are until then. */
  failure?: string;
  /** The steps the CLI said (its progress lines), with their wall time and the largest RSS sampled in each. */
  steps?: StepTime[];
}

/** One step of the import as its progress lines name it ("checking the hourly files"). */
export interface StepTime {
  step: string;
  seconds: number;
  peakRssBytes: number;
}

/**
 * Runs GNU time with `args`, reading the CLI's progress lines as they come: each step's wall time,
 * and the import process's RSS sampled every 2 s, so a row of the report says where time and
 * memory went. Resolves with the failure (exit and last lines) when it did not finish.
 */
async function runTimed(args: string[]): Promise<{ failure?: string; steps: StepTime[] }> {
  const child = spawn('/usr/bin/time', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const steps: StepTime[] = [];
  let current: StepTime | null = null;
  let since = performance.now();
  const tail: string[] = [];
  const close = () => {
    if (current) current.seconds += (performance.now() - since) / 1000;
  };
  const lines = createInterface({ input: child.stderr });
  lines.on('line', (line) => {
    tail.push(line);
    if (tail.length > 12) tail.shift();
    const m = /^import: (.+?)(?: \(.*\))?(?:, \d+ s so far)?$/.exec(line);
    if (!m || m[1] === current?.step) return;
    close();
    since = performance.now();
    current = steps.find((s) => s.step === m[1]) ?? null;
    if (!current) steps.push((current = { step: m[1]!, seconds: 0, peakRssBytes: 0 }));
  });
  // The import is GNU time's child: its RSS, not time's.
  const sampler = setInterval(() => {
    try {
      const kid = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(' ')[0];
      const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${kid}/status`, 'utf8'))?.[1];
      if (current && kb) current.peakRssBytes = Math.max(current.peakRssBytes, Number(kb) * 1024);
    } catch {
      // Not started yet, or gone.
    }
  }, 2000);
  const [code] = (await once(child, 'close')) as [number | null];
  clearInterval(sampler);
  close();
  // The error's own line and what follows it (DuckDB's advice runs to several lines after it).
  const from = tail.findIndex((l) => /error/i.test(l));
  const said = (from >= 0 ? tail.slice(from, from + 3) : tail.slice(-3)).join(' ');
  return { ...(code === 0 ? {} : { failure: `exit ${code ?? '?'}: ${said}` }), steps };
}

export async function runGhcnhScaleBench(o: {
  stations: number;
  years: number;
  log(line: string): void;
}): Promise<GhcnhScaleResults> {
  const startedAt = new Date().toISOString();
  const load0 = loadavg()[0]!;
  const dir = join(cacheDir(), `ghcnh-${o.stations}x${o.years}`);
  await mkdir(dir, { recursive: true });
  const first = 2015;
  let inputRows = 0;
  const t0 = performance.now();
  for (let s = 0; s < o.stations; s++) {
    for (let y = first; y < first + o.years; y++) {
      const path = join(dir, `GHCNh_${station(s).id}_${y}.psv`);
      if (existsSync(path)) {
        inputRows += (Date.UTC(y + 1, 0, 1) - Date.UTC(y, 0, 1)) / 3_600_000;
        continue;
      }
      inputRows += await writeYear(dir, s, y);
    }
    if (s % 50 === 49)
      o.log(`  inputs: ${s + 1} of ${o.stations} stations (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  const files = (await readdir(dir)).filter((f) => f.endsWith('.psv')).sort();
  let inputBytes = 0;
  for (const f of files) inputBytes += (await stat(join(dir, f))).size;
  o.log(`${files.length} files, ${(inputBytes / 1e9).toFixed(2)} GB, ${inputRows.toLocaleString('en')} rows`);

  const out = join(cacheDir(), `ghcnh-${o.stations}x${o.years}-dataset`);
  await rm(out, { recursive: true, force: true });
  // The CLI as an operator runs it, the files named as a shell's glob expands them.
  const args = [join(REPO, 'bin/climate-query.js'), 'import', 'ghcnh', ...files.map((f) => join(dir, f)), '--out', out];
  o.log(`importing: climate-query import ghcnh <${files.length} files> --out DIR`);
  // GNU time's report goes to its own file: on a failure the CLI's own words are what stderr holds.
  const timeFile = join(cacheDir(), `ghcnh-${o.stations}x${o.years}.time`);
  const { failure, steps } = await runTimed(['-v', '-o', timeFile, process.execPath, ...args]);
  const text = await readFile(timeFile, 'utf8');
  const time = parseGnuTime(text);
  if (failure) o.log(`the import failed: ${failure}`);
  let datasetBytes = 0;
  for (const e of await readdir(out, { withFileTypes: true, recursive: true }))
    if (e.isFile()) datasetBytes += (await stat(join(e.parentPath, e.name))).size;
  const results: GhcnhScaleResults = {
    startedAt,
    environment: { ...hostInfo(), loadAverage: { start: load0, end: loadavg()[0]! } },
    stations: o.stations,
    years: o.years,
    files: files.length,
    inputBytes,
    inputRows,
    ...time,
    datasetBytes,
    steps,
    command: `climate-query import ghcnh GHCNh_*.psv --out DIR (${files.length} files)`,
    ...(failure ? { failure } : {}),
  };
  o.log(
    `${time.wallS.toFixed(0)} s wall, ${time.cpuS.toFixed(0)} s CPU, peak RSS ${(time.peakRssBytes / 1e9).toFixed(2)} GB, ${Math.round(inputRows / time.wallS).toLocaleString('en')} rows/s`,
  );
  // Runs of other sizes are kept beside this one (a network's shape: many stations, or long records).
  const file = join(REPO, 'bench/ghcnh-scale-results.json');
  const earlier = existsSync(file) ? (JSON.parse(await readFile(file, 'utf8')) as GhcnhScaleResults[]) : [];
  const runs = [...earlier.filter((e) => e.stations !== o.stations || e.years !== o.years), results].sort(
    (a, b) => a.stations * a.years - b.stations * b.years || a.stations - b.stations,
  );
  await writeFile(file, `${JSON.stringify(runs, null, 2)}\n`);
  const doc = join(REPO, 'docs/performance.md');
  await writeFile(doc, spliceSection(await readFile(doc, 'utf8'), renderGhcnhScale(runs)));
  await rm(out, { recursive: true, force: true });
  return results;
}

/** The section of docs/performance.md, a row per size run. */
export function renderGhcnhScale(runs: readonly GhcnhScaleResults[]): string {
  const env = runs[runs.length - 1]!.environment;
  const row = (r: GhcnhScaleResults) =>
    `| ${r.stations.toLocaleString('en')} × ${r.years} | ${r.files.toLocaleString('en')} | ${(r.inputBytes / 1e9).toFixed(2)} GB | ${r.inputRows.toLocaleString('en')} | ${r.wallS.toFixed(0)} s | ${r.cpuS.toFixed(0)} s | ${r.failure ? '**did not finish**' : Math.round(r.inputRows / r.wallS).toLocaleString('en')} | ${r.peakRssBytes > 2e9 ? `**${(r.peakRssBytes / 1e9).toFixed(2)} GB**` : `${(r.peakRssBytes / 1e9).toFixed(2)} GB`} | ${r.failure ? '—' : `${(r.datasetBytes / 1e6).toFixed(0)} MB`} | ${r.startedAt.slice(0, 16).replace('T', ' ')}${Number.isFinite(r.environment.loadAverage.start) ? ` (load ${r.environment.loadAverage.start.toFixed(1)})` : ''} |`;
  const failed = runs.filter((r) => r.failure);
  return `## ${GHCNH_SCALE_HEADING}

\`climate-query import ghcnh GHCNh_*.psv --out DIR\` under GNU time on ${env.cpus} × ${env.cpuModel}, ${env.memoryGB} GB, Node ${env.node}, over hourly GHCNh files written by bench/ghcnh-scale.ts: GHCNh's header and per-variable code columns for nine variables, a report every hour, some failed quality codes, calm winds and traces of rain. A row per size run (stations × years); the target is bounded memory (≤ 2 GB peak RSS) with the throughput reported.

| stations × years | files | input | rows | wall | CPU | rows a second | peak RSS | dataset | run (UTC) |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---|
${runs.map(row).join('\n')}
${failed.map((r) => `\nThe ${r.stations.toLocaleString('en')} × ${r.years} run did not finish: ${r.failure} Its wall time, CPU and peak RSS are until it stopped.\n`).join('')}${stepsOf(runs)}
The reading is bounded because the import reads one station's files at a time (grouped by the station their names give), writes that station's rows as the build's input and keeps only their counts; the build then reads those inputs with DuckDB under its memory limit. The dataset holds the hourly series and the daily, dekadal and monthly ones derived from it.
`;
}

/** Where the time and memory of the largest run with its steps recorded went, a line per step. */
function stepsOf(runs: readonly GhcnhScaleResults[]): string {
  const r = [...runs].reverse().find((x) => x.steps?.length);
  if (!r) return '';
  return `\nWhere the ${r.stations.toLocaleString('en')} × ${r.years} run's time went, by the steps the CLI said (the import process's RSS sampled every 2 s):\n\n| step | wall | peak RSS sampled |\n|---|---:|---:|\n${r.steps!.map((s) => `| ${s.step} | ${s.seconds.toFixed(0)} s | ${s.peakRssBytes ? `${(s.peakRssBytes / 1e9).toFixed(2)} GB` : '— (under 2 s)'} |`).join('\n')}\n`;
}

export function spliceSection(doc: string, section: string): string {
  const parts = doc.split(/^(?=## )/m);
  const i = parts.findIndex((p) => p.startsWith(`## ${GHCNH_SCALE_HEADING}\n`));
  if (i >= 0) parts[i] = `${section.trimEnd()}\n\n`;
  else parts.push(`${section.trimEnd()}\n\n`);
  return parts.join('');
}
