/**
 * Opens a NetCDF file for the raster build, whatever its format, behind
 * one small interface: its variables (dimension names, shape, attributes)
 * and their values, whole or one 2-D slab at a time.
 *
 * - Classic and 64-bit-offset NetCDF ("CDF\x01", "CDF\x02") are read with
 *   netcdfjs, which parses the header and reads whole variables; it takes
 *   the file as one buffer, so a variable is bounded (MAX_CLASSIC_VALUES).
 * - NetCDF-4 (an HDF5 file, "\x89HDF\r\n\x1a\n") is read with h5wasm
 *   (HDF5 compiled to WebAssembly, host files through Emscripten's
 *   NODERAWFS), which reads chunked, deflated variables one slab at a time.
 * - CDF-5 ("CDF\x05") neither library reads: the error says how to convert.
 *
 * Both libraries are optional peer dependencies loaded on first use, like
 * gdal3.js: an app that only queries never loads them. The build's GDAL
 * (gdal3.js) has no netCDF or HDF5 driver, which is why this exists.
 */
import { open, readFile, stat } from 'node:fs/promises';
import { BuildError } from './build-error.ts';

/** An attribute value: text, or numbers (one or more). */
export type AttributeValue = string | number[];

/** One variable of a NetCDF file. */
export interface NcVariable {
  name: string;
  /** Dimension names, slowest first (C order). */
  dims: string[];
  shape: number[];
  attributes: Record<string, AttributeValue>;
  /** The stored type's name as the file gives it (e.g. short, float, <h, <f). */
  type: string;
  /** Default netCDF fill value of the stored type, used when the variable states no _FillValue. */
  defaultFill: number | null;
}

/** A NetCDF file opened for reading. */
export interface NcFile {
  format: 'classic' | '64-bit offset' | 'netCDF-4';
  variables: NcVariable[];
  /** All values of a (small) variable, e.g. a coordinate. */
  values(name: string): ArrayLike<number>;
  /** The last two dimensions' values at one index of each leading dimension. */
  slab(name: string, leading: number[]): ArrayLike<number>;
  close(): void;
}

/** Largest variable read from a classic file (netcdfjs reads whole variables into JS arrays: ≈ 8 bytes a value). */
export const MAX_CLASSIC_VALUES = 50_000_000;

/** What a file's first bytes say it is. */
export type NetcdfKind = 'classic' | '64-bit offset' | 'cdf5' | 'hdf5' | null;

/** Sniffs a file's format from its first eight bytes (HDF5 also at 512, 1024, 2048 when a user block comes first). */
export async function sniffNetcdf(path: string): Promise<NetcdfKind> {
  const fh = await open(path, 'r');
  try {
    const head = Buffer.alloc(8);
    for (const at of [0, 512, 1024, 2048]) {
      const { bytesRead } = await fh.read(head, 0, 8, at);
      if (at === 0 && bytesRead >= 4 && head.subarray(0, 3).toString('latin1') === 'CDF') {
        return head[3] === 1 ? 'classic' : head[3] === 2 ? '64-bit offset' : head[3] === 5 ? 'cdf5' : null;
      }
      if (bytesRead < 8) break;
      if (head.equals(Buffer.from([0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'hdf5';
    }
    return null;
  } finally {
    await fh.close();
  }
}

/** Opens `path` (a NetCDF file of any kind `sniffNetcdf` names); `shown` is the name errors use. */
export async function openNetcdf(path: string, kind: Exclude<NetcdfKind, null>, shown: string): Promise<NcFile> {
  if (kind === 'cdf5') {
    throw new BuildError(
      'unreadable_input',
      `${shown} is NetCDF CDF-5 (64-bit data), which the build does not read. Convert it to NetCDF-4 first: \`nccopy -k nc4 ${shown} out.nc\`.`,
      { file: shown },
    );
  }
  return kind === 'hdf5' ? openHdf5(path, shown) : openClassic(path, shown);
}

async function optional<T>(name: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    throw new BuildError(
      'unreadable_input',
      `Reading NetCDF needs the optional package ${name}: run \`npm install ${name}\` next to climate-query.`,
      { cause: err },
    );
  }
}

const CLASSIC_FILL: Record<string, number> = {
  byte: -127,
  char: 0,
  short: -32767,
  int: -2147483647,
  float: 9.969209968386869e36,
  double: 9.969209968386869e36,
};

async function openClassic(path: string, shown: string): Promise<NcFile> {
  const { NetCDFReader } = await optional('netcdfjs', () => import('netcdfjs'));
  let reader: InstanceType<typeof NetCDFReader>;
  try {
    reader = new NetCDFReader(await readFile(path));
  } catch (err) {
    throw new BuildError(
      'unreadable_input',
      `${shown} starts like NetCDF but its header cannot be read (${err instanceof Error ? err.message : String(err)}); the file may be truncated.`,
      { file: shown, cause: err },
    );
  }
  const dims = reader.dimensions;
  const record = reader.recordDimension;
  const variables: NcVariable[] = reader.header.variables.map((v) => ({
    name: v.name,
    dims: v.dimensions.map((d) => dims[d]!.name),
    shape: v.dimensions.map((d) => (d === record.id ? record.length : dims[d]!.size)),
    attributes: Object.fromEntries(
      (v.attributes as Array<{ name: string; value: unknown }>).map((a) => [
        a.name,
        typeof a.value === 'string' ? a.value : ([] as number[]).concat(a.value as number | number[]),
      ]),
    ),
    type: v.type,
    defaultFill: CLASSIC_FILL[v.type] ?? null,
  }));
  const cache = new Map<string, Float64Array>();
  const all = (name: string): Float64Array => {
    let data = cache.get(name);
    if (data) return data;
    const v = variables.find((x) => x.name === name)!;
    const count = v.shape.reduce((a, b) => a * b, 1);
    if (count > MAX_CLASSIC_VALUES) {
      throw new BuildError(
        'unreadable_input',
        `${shown}: variable ${name} holds ${count.toLocaleString('en')} values, more than the ${MAX_CLASSIC_VALUES.toLocaleString('en')} read from a classic NetCDF file at once. Convert it to NetCDF-4 (\`nccopy -k nc4 ${shown} out.nc\`), which is read a slab at a time, or split it by time.`,
        { file: shown },
      );
    }
    const raw = reader.getDataVariable(name) as unknown as number | string | Array<number | number[]>;
    if (typeof raw === 'string' || typeof raw === 'number') data = Float64Array.of(Number(raw));
    else data = Float64Array.from((raw as Array<number | number[]>).flat() as number[]);
    if (data.length !== count)
      throw new BuildError(
        'unreadable_input',
        `${shown}: variable ${name} should hold ${count} values but ${data.length} were read; the file may be truncated.`,
        { file: shown },
      );
    cache.set(name, data);
    return data;
  };
  return {
    format: reader.version === '64-bit offset format' ? '64-bit offset' : 'classic',
    variables,
    values: all,
    slab(name, leading) {
      const v = variables.find((x) => x.name === name)!;
      const plane = v.shape.slice(-2).reduce((a, b) => a * b, 1);
      let index = 0;
      leading.forEach((i, k) => (index = index * v.shape[k]! + i));
      return all(name).subarray(index * plane, (index + 1) * plane);
    },
    close() {
      cache.clear();
    },
  };
}

interface H5Dataset {
  shape: number[] | null;
  dtype: unknown;
  attrs: Record<string, unknown>;
  value: unknown;
  get_attribute(name: string, json: boolean): unknown;
  get_attached_scales(index: number): string[];
  slice(ranges: Array<[number, number] | []>): unknown;
}

async function openHdf5(path: string, shown: string): Promise<NcFile> {
  const h5 = (await optional('h5wasm', () => import('h5wasm/node'))).default;
  await h5.ready;
  // h5wasm reports a missing or unreadable file by printing HDF5's error stack and throwing a bare
  // number; the size check gives a plain message for the common case (an empty or cut file).
  if ((await stat(path)).size < 96)
    throw new BuildError('unreadable_input', `${shown} is too short to be a NetCDF-4 file; it may be truncated.`, {
      file: shown,
    });
  let file: InstanceType<typeof h5.File>;
  try {
    file = new h5.File(path, 'r');
  } catch (err) {
    throw new BuildError(
      'unreadable_input',
      `${shown} looks like NetCDF-4/HDF5 but HDF5 cannot open it (${err instanceof Error ? err.message : String(err)}); the file may be truncated.`,
      { file: shown, cause: err },
    );
  }
  const datasets = new Map<string, H5Dataset>();
  const walk = (prefix: string) => {
    for (const key of (file.get(prefix || '/') as { keys(): string[] }).keys()) {
      const full = `${prefix}/${key}`;
      const item = file.get(full) as unknown as H5Dataset & { keys?: () => string[]; type?: string };
      if (item && item.constructor?.name === 'Dataset') datasets.set(full.slice(1), item);
      else if (item && typeof item.keys === 'function' && prefix === '') walk(full); // one group level: enough for CF files with groups
    }
  };
  walk('');
  const variables: NcVariable[] = [];
  for (const [name, ds] of datasets) {
    const shape = ds.shape ?? [];
    // netCDF-4 keeps each dimension as an HDF5 dimension scale (CLASS = DIMENSION_SCALE) named like
    // the dimension, and attaches scales to every variable's axes.
    const isScale = 'CLASS' in ds.attrs;
    const dims = shape.map((_, i) => {
      if (isScale && shape.length === 1) return name;
      let scales: string[] = [];
      try {
        scales = ds.get_attached_scales(i);
      } catch {
        scales = [];
      }
      return scales[0] ? scales[0].replace(/^\//, '') : `${name}#${i}`;
    });
    const attributes: Record<string, AttributeValue> = {};
    for (const key of Object.keys(ds.attrs)) {
      if (
        key === 'DIMENSION_LIST' ||
        key === 'REFERENCE_LIST' ||
        key === 'CLASS' ||
        key === 'NAME' ||
        key.startsWith('_Netcdf4')
      )
        continue;
      let v: unknown;
      try {
        v = ds.get_attribute(key, true);
      } catch {
        continue;
      }
      if (typeof v === 'string') attributes[key] = v;
      else if (typeof v === 'number' || typeof v === 'bigint') attributes[key] = [Number(v)];
      else if (Array.isArray(v) && v.every((x) => typeof x === 'number' || typeof x === 'bigint'))
        attributes[key] = v.map(Number);
      else if (Array.isArray(v) && v.length === 1 && typeof v[0] === 'string') attributes[key] = v[0];
    }
    variables.push({
      name,
      dims,
      shape,
      attributes,
      type: String(ds.dtype),
      defaultFill: hdf5DefaultFill(String(ds.dtype)),
    });
  }
  const numeric = (name: string, data: unknown): ArrayLike<number> => {
    if (data instanceof BigInt64Array || data instanceof BigUint64Array) return Float64Array.from(data, Number);
    if (ArrayBuffer.isView(data) && !(data instanceof DataView)) return data as unknown as ArrayLike<number>;
    if (typeof data === 'number') return [data];
    throw new BuildError('unreadable_input', `${shown}: variable ${name} is not numeric.`, { file: shown });
  };
  return {
    format: 'netCDF-4',
    variables,
    values: (name) => numeric(name, datasets.get(name)!.value),
    slab(name, leading) {
      const ds = datasets.get(name)!;
      const ranges = (ds.shape ?? []).map((_, k): [number, number] | [] =>
        k < leading.length ? [leading[k]!, leading[k]! + 1] : [],
      );
      return numeric(name, ds.slice(ranges));
    },
    close() {
      file.close();
    },
  };
}

/** netCDF-4's default fill of an HDF5 type string (h5wasm's struct codes: <h, <f, …). */
function hdf5DefaultFill(dtype: string): number | null {
  const code = dtype.replace(/^[<>|=]/, '');
  return (
    (
      {
        b: -127,
        B: 255,
        h: -32767,
        H: 65535,
        i: -2147483647,
        I: 4294967295,
        f: 9.969209968386869e36,
        d: 9.969209968386869e36,
      } as Record<string, number>
    )[code] ?? null
  );
}
