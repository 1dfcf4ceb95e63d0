/**
 * Builds a scale archive with the real CLI, `climate-query build`, in a
 * child process under GNU time (`/usr/bin/time -v`), so that its wall time
 * and peak resident memory are those of the whole build (Node plus native
 * DuckDB), the way a user would meet them.
 *
 * The dataset starts as a copy of the demo's catalog and raster layers, so
 * that the first raster answer can be measured on a dataset whose station
 * index holds thousands of stations. The build replaces only the catalog's
 * station section. Built archives are cached with their build measurement
 * (`build.json`); a partly built one is never reused.
 */
import { STATION_TIME_SCALES } from '../src/contract/time-scales.ts';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO } from './dataset.ts';
import type { ScaleInputFiles, ScaleInputSpec } from './scale-inputs.ts';

/** A station file's scale folder in a path (/hourly/, /dekadal/, …), any station scale. */
const SCALE_DIR = new RegExp(`/(${STATION_TIME_SCALES.join('|')})/`);

/** What building one archive cost. */
export interface ScaleBuild {
  /** The built dataset folder. */
  dir: string;
  /** When the build ran (ISO time). */
  builtAt: string;
  /** Wall time of the CLI process, s. */
  wallS: number;
  /** Peak resident memory of the CLI process and its children (GNU time's "Maximum resident set size"), bytes. */
  peakRssBytes: number;
  /** User + system CPU time, s. */
  cpuS: number;
  /** Rows in the input observations file. */
  inputRows: number;
  /** Bytes of the station archive (stations/), and how many station files it holds per scale. */
  archiveBytes: number;
  files: Record<string, number>;
  /** The command line, for the report. */
  command: string;
}

/** Parses `/usr/bin/time -v` output: wall seconds, peak RSS bytes, CPU seconds. */
export function parseGnuTime(text: string): { wallS: number; peakRssBytes: number; cpuS: number } {
  const num = (re: RegExp) => {
    const m = re.exec(text);
    if (!m) throw new Error(`GNU time output lacks ${re.source}:\n${text.slice(-2000)}`);
    return m[1]!;
  };
  const wall = num(/Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)/)
    .split(':')
    .map(Number)
    .reduce((acc, x) => acc * 60 + x, 0);
  return {
    wallS: wall,
    peakRssBytes: Number(num(/Maximum resident set size \(kbytes\): (\d+)/)) * 1024,
    cpuS: Number(num(/User time \(seconds\): ([\d.]+)/)) + Number(num(/System time \(seconds\): ([\d.]+)/)),
  };
}

async function folderStats(dir: string): Promise<{ bytes: number; files: Record<string, number> }> {
  let bytes = 0;
  const files: Record<string, number> = {};
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const p = join(e.parentPath, e.name);
    bytes += (await stat(p)).size;
    const scale = SCALE_DIR.exec(p)?.[1];
    if (scale && e.name.endsWith('.parquet')) files[scale] = (files[scale] ?? 0) + 1;
  }
  return { bytes, files };
}

/**
 * Gives a cached scale dataset the demo's current raster layers when they differ from its copy (a
 * rebuilt demo, a new layout), so the first-raster-answer row compares the same rasters; the station
 * archive is kept. Returns whether anything was copied.
 */
async function syncRasters(demoDir: string, dir: string): Promise<boolean> {
  type Files = { rasters: unknown; files: Array<{ path: string; role?: string }> };
  const demo = JSON.parse(await readFile(join(demoDir, 'catalog.json'), 'utf8')) as Files;
  const mine = JSON.parse(await readFile(join(dir, 'catalog.json'), 'utf8')) as Files;
  if (JSON.stringify(demo.rasters) === JSON.stringify(mine.rasters)) return false;
  const isRaster = (f: { role?: string }) => f.role === 'raster' || f.role === 'raster-preview';
  await rm(join(dir, 'rasters'), { recursive: true, force: true });
  await cp(join(demoDir, 'rasters'), join(dir, 'rasters'), { recursive: true });
  mine.rasters = demo.rasters;
  mine.files = [...mine.files.filter((f) => !isRaster(f)), ...demo.files.filter(isRaster)];
  await writeFile(join(dir, 'catalog.json'), `${JSON.stringify(mine)}\n`);
  return true;
}

/**
 * Builds (once) the archive of `spec` from `inputs` into `<cacheDir>/<folder>/`,
 * on top of a copy of `demoDir`'s catalog and rasters; returns the cached or
 * new measurement. `inputRows` is counted by the caller (native DuckDB).
 */
export async function ensureScaleBuild(
  spec: ScaleInputSpec,
  inputs: ScaleInputFiles,
  inputRows: number,
  demoDir: string,
  cacheDir: string,
  log: (s: string) => void,
): Promise<ScaleBuild> {
  const dir = join(cacheDir, spec.folder);
  const record = join(cacheDir, `${spec.folder}.build.json`);
  if (existsSync(record) && existsSync(join(dir, 'catalog.json'))) {
    if (await syncRasters(demoDir, dir)) log(`${spec.folder}: raster layers taken again from the demo (they changed)`);
    return JSON.parse(await readFile(record, 'utf8')) as ScaleBuild;
  }
  const tmp = `${dir}.building`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  await cp(join(demoDir, 'catalog.json'), join(tmp, 'catalog.json'));
  await cp(join(demoDir, 'rasters'), join(tmp, 'rasters'), { recursive: true });
  const args = [
    'build',
    '--out',
    tmp,
    '--stations',
    inputs.stations,
    `--${inputs.scale}`,
    inputs.observations,
    '--name',
    `scale-${spec.id}`,
  ];
  // As a user would type it: the final folder (the build writes to a staging copy first), paths from the repository.
  const command = `climate-query ${args
    .join(' ')
    .replace(tmp, dir)
    .replaceAll(REPO.endsWith('/') ? REPO : `${REPO}/`, '')}`;
  log(`building ${spec.folder}: ${command}`);
  const builtAt = new Date().toISOString();
  const stderr = await new Promise<string>((resolve, reject) => {
    execFile(
      '/usr/bin/time',
      ['-v', process.execPath, join(REPO, 'bin/climate-query.js'), ...args],
      { cwd: REPO, maxBuffer: 64 * 1024 * 1024, env: process.env },
      (err, _stdout, stderrText) =>
        err
          ? reject(
              new Error(`climate-query build failed for ${spec.folder}: ${err.message}\n${stderrText.slice(-4000)}`),
            )
          : resolve(stderrText),
    );
  });
  const time = parseGnuTime(stderr);
  // The rasters were copied, not built: the archive is stations/.
  const archive = await folderStats(join(tmp, 'stations'));
  await rm(dir, { recursive: true, force: true });
  await rename(tmp, dir);
  const result: ScaleBuild = {
    dir,
    builtAt,
    ...time,
    inputRows,
    archiveBytes: archive.bytes,
    files: archive.files,
    command,
  };
  await writeFile(record, `${JSON.stringify(result, null, 1)}\n`);
  log(`built ${spec.folder} in ${time.wallS.toFixed(0)} s, peak RSS ${(time.peakRssBytes / 1e9).toFixed(2)} GB`);
  return result;
}
