/**
 * What a layer becomes when files are added to it — by a build of some of
 * its years, or by `climate-query layers merge` of years built elsewhere.
 * Pure: the build and the merge command ask it before they touch the
 * dataset, then do what it says.
 *
 * A layer keeps what it holds: files (a year's store, a year's map file, the
 * one file of an annual, calendar-month or undated layer) are replaced only
 * by a file of the same group that holds at least the same dates; files it
 * keeps must share the new files' grid, storage and layout. Anything else is
 * refused with what to do, unless the caller asks to replace the layer whole.
 */
import {
  fileStep,
  layoutOf,
  RASTER_LAYOUTS,
  type RasterFileEntry,
  type RasterLayerEntry,
  type RasterLayout,
} from '../../dataset/catalog.ts';
import { BuildError } from '../build-error.ts';

/** The plan: the layer to register, and the files of the old one it no longer lists. */
export interface LayerMerge {
  layer: RasterLayerEntry;
  /** Dataset paths the old entry listed and the new one does not (to delete after the catalog is written). */
  dropped: string[];
  /** Group names the incoming files replaced, and those they added. */
  replacedGroups: string[];
  addedGroups: string[];
}

/**
 * A file's group: the year of a year's file (`2024.tif`, `2024-3f9a1c2e.zarr` → `2024`), else its
 * name without the build's id (`years.tif`, `years-3f9a1c2e.tif` → `years.tif`; `months.tif`,
 * `layer.tif`). Two files of one group hold the same period span.
 */
export function fileGroup(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const year = /^(\d{4})(?:-[A-Za-z0-9]+)?\.(?:tif|zarr)$/.exec(name);
  if (year) return year[1]!;
  const whole = /^(years|months|layer)-[A-Za-z0-9]+\.tif$/.exec(name);
  return whole ? `${whole[1]}.tif` : name;
}

/**
 * The name a build (or a merge) gives the file of `group` (`2024.tif`, `years.tif`): the group and
 * the build's own id (`2024-3f9a1c2e.zarr`, `years-3f9a1c2e.tif`). A rebuilt file is a new file
 * beside the old one, never written over a file a reader may be using, so a command killed at any
 * moment leaves the catalog's files as they were (docs/reliability.md).
 */
export function builtFileName(group: string, buildId: string, layout: RasterLayout): string {
  const id = buildId
    .split('/')
    .pop()!
    .replace(/[^A-Za-z0-9]/g, '');
  return `${group.replace(/\.tif$/, '')}-${id}.${RASTER_LAYOUTS[layout].suffix}`;
}

const name = (l: RasterLayerEntry) => `${l.dataType}${l.subDataType === '-' ? '' : `/${l.subDataType}`}`;

/** How two entries' storage differs, in words; empty when files of one may sit beside files of the other. */
export function storageDifferences(a: RasterLayerEntry, b: RasterLayerEntry): string[] {
  const out: string[] = [];
  const near = (x: number, y: number) => Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x), Math.abs(y));
  if (a.timeScale !== b.timeScale) out.push(`time scale ${a.timeScale ?? 'none'} / ${b.timeScale ?? 'none'}`);
  if (a.unit !== b.unit) out.push(`unit ${a.unit} / ${b.unit}`);
  if (layoutOf(a) !== layoutOf(b)) out.push(`layout ${layoutOf(a)} / ${layoutOf(b)}`);
  if (a.width !== b.width || a.height !== b.height)
    out.push(`grid ${a.width} × ${a.height} / ${b.width} × ${b.height} px`);
  const ra = a.resolution ?? [0, 0];
  const rb = b.resolution ?? [0, 0];
  if (!near(ra[0], rb[0]) || !near(ra[1], rb[1]) || !near(a.bbox[0], b.bbox[0]) || !near(a.bbox[3], b.bbox[3])) {
    out.push(
      `grid origin or pixel size [${a.bbox[0]}, ${a.bbox[3]}] ${ra.join(' × ')}° / [${b.bbox[0]}, ${b.bbox[3]}] ${rb.join(' × ')}°`,
    );
  }
  if (a.nodata !== b.nodata) out.push(`nodata ${a.nodata} / ${b.nodata}`);
  if (JSON.stringify(a.zarr ?? null) !== JSON.stringify(b.zarr ?? null)) out.push('zarr arrays');
  if (layoutOf(a) === 'map' && JSON.stringify(a.tileSize ?? null) !== JSON.stringify(b.tileSize ?? null)) {
    out.push(`tiles ${a.tileSize?.join(' × ') ?? '?'} / ${b.tileSize?.join(' × ') ?? '?'} px`);
  }
  return out;
}

/**
 * `incoming`'s files added to `existing` (same name, sub-type and extent). With `replace`, the layer
 * becomes `incoming` as it is. Throws BuildError `conflict` when files cannot sit together or a file
 * would be replaced by one holding fewer dates. `where` names the dataset in messages.
 */
export function mergeLayer(
  existing: RasterLayerEntry | undefined,
  incoming: RasterLayerEntry,
  options: { replace?: boolean; where: string },
): LayerMerge {
  const groups = (l: RasterLayerEntry) => new Map(l.files.map((f) => [fileGroup(f.path), f]));
  const mine = groups(incoming);
  if (!existing || options.replace) {
    // A store referenced in place is not the dataset's to delete: its entry alone is replaced.
    const dropped =
      existing && RASTER_LAYOUTS[layoutOf(existing)].built
        ? existing.files.map((f) => f.path).filter((p) => !incoming.files.some((f) => f.path === p))
        : [];
    const old = existing ? groups(existing) : new Map<string, RasterFileEntry>();
    return {
      layer: incoming,
      dropped,
      replacedGroups: [...mine.keys()].filter((g) => old.has(g)),
      addedGroups: [...mine.keys()].filter((g) => !old.has(g)),
    };
  }
  if (!RASTER_LAYOUTS[layoutOf(existing)].built || !RASTER_LAYOUTS[layoutOf(incoming)].built) {
    throw new BuildError(
      'conflict',
      `${name(existing)} in ${options.where} is a store referenced in place (\`climate-query layers add\`), whose years are its own: a build or a merge cannot add files beside it. Build under another name, or replace the entry whole (--replace).`,
      { option: 'replace' },
    );
  }
  const theirs = groups(existing);
  // Storage matters only where old files stay beside the new ones.
  const staying = [...theirs.keys()].filter((g) => !mine.has(g));
  const differ = staying.length > 0 ? storageDifferences(existing, incoming) : [];
  if (differ.length > 0) {
    throw new BuildError(
      'conflict',
      `${name(existing)} in ${options.where} holds ${describeFiles(existing)} (${staying.join(', ')} kept by this build) stored differently (${differ.join('; ')}, the dataset's first); its files cannot sit beside these. Build with the layer's own settings, remove it first (\`climate-query layers remove ${name(existing)}\`), or replace it whole (--replace).`,
      { option: 'replace' },
    );
  }
  for (const [g, f] of mine) {
    const before = theirs.get(g);
    if (!before) continue;
    const now = new Set(f.periods);
    const lost = before.periods.filter((p) => !now.has(p));
    if (lost.length > 0) {
      throw new BuildError(
        'conflict',
        `${name(existing)} in ${options.where} holds ${before.periods.length} dates in ${g}; these inputs give ${f.periods.length}, without ${lost.length === 1 ? lost[0] : `${lost.length} of them (${lost[0]} … ${lost[lost.length - 1]})`}. A build adds what it is given and drops nothing: give every date of ${g}, or replace the layer whole (--replace).`,
        { option: 'replace' },
      );
    }
  }
  const stepped = withSteps(
    [
      ...existing.files.filter((f) => !mine.has(fileGroup(f.path))).map((f) => ({ f, step: fileStep(existing, f) })),
      ...incoming.files.map((f) => ({ f, step: fileStep(incoming, f) })),
    ],
    incoming,
  );
  const files = stepped.files.sort((a, b) => ((a.periods[0] ?? '') < (b.periods[0] ?? '') ? -1 : 1));
  const dropped = existing.files
    .filter((f) => mine.has(fileGroup(f.path)) && !incoming.files.some((x) => x.path === f.path))
    .map((f) => f.path);
  return {
    layer: { ...incoming, ...stepped.step, files },
    dropped,
    replacedGroups: [...mine.keys()].filter((g) => theirs.has(g)),
    addedGroups: [...mine.keys()].filter((g) => !theirs.has(g)),
  };
}

/**
 * The files with their storage steps, and the layer's: the coarsest of them (the app shows values
 * at the layer's step, and no file then holds coarser values than it shows). A file records its own
 * step only where it is not the layer's.
 */
function withSteps(
  files: Array<{ f: RasterFileEntry; step: { scale: number; offset: number } }>,
  incoming: RasterLayerEntry,
): { files: RasterFileEntry[]; step: { scale: number; offset: number } } {
  const step = files.reduce((a, { step: b }) => (Math.abs(b.scale) > Math.abs(a.scale) ? b : a), {
    scale: incoming.scale,
    offset: incoming.offset,
  });
  return {
    step,
    files: files.map(({ f, step: own }) => {
      const { scale: _scale, offset: _offset, ...rest } = f;
      return own.scale === step.scale && own.offset === step.offset ? rest : { ...rest, ...own };
    }),
  };
}

function describeFiles(l: RasterLayerEntry): string {
  const all = l.files.flatMap((f) => f.periods).filter((p) => p !== '');
  if (all.length === 0) return 'an undated grid';
  const sorted = [...all].sort();
  return `${sorted[0]} … ${sorted[sorted.length - 1]}`;
}
