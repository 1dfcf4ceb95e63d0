/**
 * gdal3.js (GDAL 3.8 in WebAssembly) for the Node build: one instance per
 * process, host folders mounted into its virtual file system, and its
 * callback-style failures turned into Errors that carry GDAL's message.
 *
 * Why the mounts: gdal3.js's own `open()` mounts the folder of the last
 * opened host file at /input and unmounts the previous one, which breaks a
 * VRT that references files from several folders. We mount each folder we
 * need under /output/cq<N> ourselves; gdal3.js treats /output/... paths as
 * internal, so its `open()` and outputs go straight through to the host disk.
 */
import { createRequire } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { BuildError, type BuildErrorCode } from './build-error.ts';

/** The parts of gdal3.js's API this project uses. */
export interface GdalDataset {
  pointer: number;
  path: string;
  type: string;
  info?: GdalInfo;
}

/** `gdalinfo -json` output, the fields used here. */
export interface GdalInfo {
  size: [number, number];
  geoTransform?: number[];
  coordinateSystem?: { wkt?: string };
  bands: Array<{
    band: number;
    type: string;
    description?: string;
    noDataValue?: number | string;
    computedMin?: number;
    computedMax?: number;
    block?: [number, number];
  }>;
}

interface GdalApi {
  open(path: string | string[], options?: string[]): Promise<{ datasets: GdalDataset[]; errors: unknown[] }>;
  close(ds: GdalDataset): Promise<void>;
  gdalinfo(ds: GdalDataset, options?: string[]): Promise<GdalInfo>;
  gdal_translate(ds: GdalDataset, options: string[], outputName: string): Promise<{ local: string }>;
  gdalwarp(ds: GdalDataset, options: string[], outputName: string): Promise<{ local: string }>;
  Module: {
    FS: {
      mkdir(path: string): void;
      mount(type: unknown, opts: { root: string }, mountpoint: string): void;
      unmount(mountpoint: string): void;
      rmdir(path: string): void;
    };
    NODEFS: unknown;
    ccall(name: string, ret: null, argTypes: string[], args: unknown[]): void;
  };
}

let instance: Promise<GdalApi> | null = null;
const stderr: string[] = [];
let mountCounter = 0;

/** The process-wide gdal3.js instance (initialised once, ~0.5 s). */
export function getGdal(): Promise<GdalApi> {
  if (!instance) {
    instance = (async () => {
      const require = createRequire(import.meta.url);
      const init = require('gdal3.js/node.js') as (config: object) => Promise<GdalApi>;
      const packageDir = resolve(dirname(require.resolve('gdal3.js/package.json')), 'dist/package');
      // gdal3.js reads its .data file from "./" + path, so the path must be relative to the working directory.
      const path = relative(process.cwd(), packageDir) || '.';
      return init({
        path,
        useWorker: false,
        env: { GDAL_CACHEMAX: '256', GDAL_NUM_THREADS: '1', CPL_LOG_ERRORS: 'ON' },
        logHandler: () => undefined,
        errorHandler: (message: string) => {
          stderr.push(message);
          if (stderr.length > 20) stderr.shift();
        },
      });
    })();
    instance.catch(() => (instance = null));
  }
  return instance;
}

/** A host folder visible to GDAL at `virtual` (under /output, so gdal3.js treats it as internal). */
export interface Mount {
  host: string;
  virtual: string;
  /** `virtual` without the leading "/output/", as gdal3.js's output names want it. */
  outputName: string;
}

/** Mounts `hostDir` into GDAL's file system; undo with {@link unmount}. */
export async function mount(hostDir: string): Promise<Mount> {
  const gdal = await getGdal();
  const outputName = `cq${process.pid}-${mountCounter++}`;
  const virtual = `/output/${outputName}`;
  gdal.Module.FS.mkdir(virtual);
  gdal.Module.FS.mount(gdal.Module.NODEFS, { root: resolve(hostDir) }, virtual);
  return { host: resolve(hostDir), virtual, outputName };
}

/** Unmounts a folder mounted by {@link mount}. */
export async function unmount(m: Mount): Promise<void> {
  const gdal = await getGdal();
  try {
    gdal.Module.FS.unmount(m.virtual);
    gdal.Module.FS.rmdir(m.virtual);
  } catch {
    // Already gone: nothing to release.
  }
}

/**
 * Runs one GDAL step, turning its `{no, message}` rejections into a
 * BuildError with recent GDAL stderr: `invalid_input` for a step that reads
 * the inputs (the default), `internal` for one that writes the layer.
 */
export async function gdalStep<T>(
  what: string,
  step: (gdal: GdalApi) => Promise<T>,
  code: BuildErrorCode = 'invalid_input',
): Promise<T> {
  const gdal = await getGdal();
  // A stale error number from an earlier step would make this one look failed.
  gdal.Module.ccall('CPLErrorReset', null, [], []);
  stderr.length = 0;
  try {
    return await step(gdal);
  } catch (err) {
    // gdal3.js rejects with `{ no, message }` or a list of them, often with an empty message.
    const parts = (Array.isArray(err) ? err : [err]).map((e) =>
      typeof e === 'object' && e !== null && 'message' in e
        ? String((e as { message: unknown }).message)
        : e instanceof Error
          ? e.message
          : String(e),
    );
    const message = parts.filter((p) => p.trim() && p !== '[object Object]').join('; ');
    const log = stderr
      .filter((l) => l.trim())
      .slice(-3)
      .join(' | ');
    throw new BuildError(
      code,
      `${what} failed: ${message || 'GDAL gave no reason (no driver recognised the file?)'}${log && !message.includes(log) ? ` (${log})` : ''}`,
      { cause: err },
    );
  }
}

/** Opens a dataset by virtual path and returns it with its gdalinfo. */
export async function openDataset(
  virtualPath: string,
  infoOptions: string[] = [],
): Promise<{ ds: GdalDataset; info: GdalInfo }> {
  return gdalStep(`Opening ${virtualPath}`, async (gdal) => {
    const { datasets, errors } = await gdal.open(virtualPath);
    const ds = datasets[0];
    if (!ds) throw { message: JSON.stringify(errors) };
    const info = infoOptions.length > 0 ? await gdal.gdalinfo(ds, infoOptions) : (ds.info ?? (await gdal.gdalinfo(ds)));
    return { ds, info };
  });
}

/** Closes a dataset opened by {@link openDataset}. */
export async function closeDataset(ds: GdalDataset): Promise<void> {
  const gdal = await getGdal();
  await gdal.close(ds);
}
