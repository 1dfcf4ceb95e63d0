/**
 * `climate-query layers add` of a COG collection: one Cloud-Optimized GeoTIFF per date, as CHIRPS
 * and Digital Earth Africa publish them, referenced in place: inside the dataset folder, or at
 * http(s) URLs (a STAC read over HTTP, or a local STAC whose assets are URLs). The dates
 * and files come from a static STAC catalog, collection or item list (each item's `datetime` and
 * its GeoTIFF asset), or from a file name template with the dates stated
 * (`chirps-v2.0.{yyyy}.{mm}.{dd}.tif --dates 2024-01-01..2024-12-31`). Every file's header is read
 * and must have the first's grid, tiling and one band; the CRS, the nodata value and the unit are
 * the files' own or stated, never guessed (CHIRPS's GeoTIFFs carry no nodata tag: −9999 is
 * missing, so it is stated with --nodata).
 */
import { existsSync } from 'node:fs';
import { readFile, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { fromFile, fromUrl } from 'geotiff';
import { isForeignPath } from '../../dataset/foreign.ts';
import { MAX_TEXT_BYTES } from '../../dataset/location.ts';
import { runLimited } from '../../io/run-limited.ts';
import { urlKeys } from './source-keys.ts';
import { CALENDARS } from '../../contract/calendars.ts';
import type { RasterTimeScale } from '../../contract/raster-layers.ts';
import { calendarOf } from '../../contract/time-scales.ts';
import { cogPath, type RasterLayerEntry } from '../../dataset/catalog.ts';
import { BuildError } from '../build-error.ts';
import { normalisePeriod } from '../raster-build-dates.ts';
import { declareLayer, knownExtents, settleExtent } from '../raster-build-declare.ts';
import { readCatalogOrEmpty } from './dataset-writer.ts';
import { type ReferencedLayerOptions, saveReferencedLayer } from './layer-add.ts';

export interface CogAddOptions extends ReferencedLayerOptions {
  /** With a template (`source` holding {yyyy}, {mm}, {dd}): the first and last date, `A..B`. */
  dates?: string;
  /** The STAC asset to read, when an item has several GeoTIFFs. */
  asset?: string;
  /** The value that means no data, when the files carry no nodata tag; `none` when every value is data. */
  nodata?: number | 'none';
}

/** What a static STAC JSON file may be: each is read below (a build tells them from other JSON by it). */
export const STAC_TYPES = ['Catalog', 'Collection', 'Feature', 'FeatureCollection'];

/** Most dates one collection may have (a daily one of 270 years). */
const MAX_DATES = 100_000;

/** Adds the collection as a layer; returns its entry. */
export async function addCogLayer(o: CogAddOptions): Promise<RasterLayerEntry> {
  const label = `${o.dataType}${o.subDataType ? `/${o.subDataType}` : ''}`;
  return saveReferencedLayer(o, label, await describeCogLayer(o));
}

/**
 * The catalog entry of the collection `o.source`, every file's header read and checked; nothing is
 * written. Its files lie in `o.root` (default: the dataset folder) or at http(s) URLs.
 */
export async function describeCogLayer(o: CogAddOptions): Promise<RasterLayerEntry> {
  const label = `${o.dataType}${o.subDataType ? `/${o.subDataType}` : ''}`;
  const bad = (why: string, option = 'source') =>
    new BuildError('invalid_input', `${o.source}: ${why}`, { file: o.source, option });
  if (/^[a-z][a-z0-9+.-]*:/i.test(o.source) && !isForeignPath(o.source))
    throw new BuildError('invalid_option', `${o.source}: a source is a path or an http(s) URL.`, { option: 'source' });
  const root = await realpath(o.root ?? o.dir).catch(() => {
    throw new BuildError('unreadable_input', `${o.root ?? o.dir} is not a dataset folder here.`, { file: o.dir });
  });
  const decl = declareLayer({
    dataType: o.dataType,
    ...(o.subDataType !== undefined ? { subDataType: o.subDataType } : {}),
    ...(o.unit !== undefined ? { unit: o.unit } : {}),
    ...(o.timeScale !== undefined ? { timeScale: o.timeScale } : {}),
    ...(o.description !== undefined ? { description: o.description } : {}),
    ...(o.extent !== undefined ? { extent: o.extent } : {}),
  });
  const scale = decl.timeScale;
  if (scale === null || scale === 'calendar_month')
    throw bad('a COG collection is a file per date: pass --time-scale daily, dekadal, monthly or annual.', 'timeScale');

  // The dates and their files (absolute paths), from the STAC or the template.
  const dated = o.source.includes('{') ? await fromTemplate(o, scale, bad) : await fromStac(o, scale, bad);
  if (dated.length === 0) throw bad('names no dates.');
  if (dated.length > MAX_DATES) throw bad(`names ${dated.length} dates, more than the ${MAX_DATES} a layer holds.`);
  dated.sort((a, b) => (a.period < b.period ? -1 : a.period > b.period ? 1 : 0));
  for (let i = 1; i < dated.length; i++)
    if (dated[i]!.period === dated[i - 1]!.period)
      throw bad(`names ${dated[i]!.period} twice (${dated[i - 1]!.file}, ${dated[i]!.file}): one file a date.`);

  // The files lie in one folder, inside the dataset or at one URL, named by one template.
  const real = await Promise.all(
    dated.map((d) =>
      isForeignPath(d.file)
        ? Promise.resolve(d.file)
        : realpath(d.file).catch(() => {
            throw bad(`names ${d.file} for ${d.period}, which is not there.`);
          }),
    ),
  );
  const remote = real.filter(isForeignPath).length;
  if (remote !== 0 && remote !== real.length)
    throw bad('names files both inside the dataset folder and at URLs: a collection lies in one folder.');
  const rels = remote ? real : real.map((r) => relative(root, r));
  if (!remote && rels.some((r) => r.startsWith('..') || isAbsolute(r)))
    throw new BuildError(
      'invalid_option',
      `${o.source}: its files must lie inside the dataset folder ${o.dir}, where the dataset is published, or at an http(s) URL.`,
      { option: 'source' },
    );
  const posix = remote ? rels : rels.map((r) => r.split(sep).join('/'));
  const folder = commonFolder(posix);
  const template = templateOf(posix[0]!.slice(folder.length + 1), dated[0]!.period, scale);
  posix.forEach((p, i) => {
    if (`${folder}/${cogPath(template, dated[i]!.period)}` !== p)
      throw bad(
        `its files follow no one naming pattern with their dates (${template} would name ${dated[i]!.period} ${folder}/${cogPath(template, dated[i]!.period)}, not ${p}).`,
      );
  });

  // Every file's header: one band, the first's grid and tiling, north up (over HTTP, six at once).
  const headers = new Array<Header>(real.length);
  await runLimited(
    real.map((f, i) => async () => {
      headers[i] = await header(f, bad);
    }),
    remote ? 6 : 2,
  );
  const first = headers[0]!;
  for (let i = 1; i < real.length; i++) {
    const h = headers[i]!;
    const same =
      h.width === first.width &&
      h.height === first.height &&
      h.tile[0] === first.tile[0] &&
      h.tile[1] === first.tile[1] &&
      h.origin.every((v, k) => Math.abs(v - first.origin[k]!) < 1e-9) &&
      h.res.every((v, k) => Math.abs(v - first.res[k]!) < 1e-12) &&
      h.float === first.float;
    if (!same)
      throw bad(
        `${posix[i]} is ${h.width}×${h.height} px (tiles ${h.tile.join('×')}) at ${h.origin.join(', ')}, where ${posix[0]} is ${first.width}×${first.height} (tiles ${first.tile.join('×')}) at ${first.origin.join(', ')}: a collection's files share one grid.`,
      );
  }
  if (first.epsg !== null && first.epsg !== 4326)
    throw bad(
      `its files are in EPSG:${first.epsg}; this references longitude/latitude grids (EPSG:4326): reproject them, or build from them.`,
    );
  if (first.epsg === null && !/^EPSG:4326$/i.test(o.crs ?? ''))
    throw bad(
      'its files state no CRS: pass --crs EPSG:4326 if they are WGS 84 longitude/latitude; it is never guessed.',
      'crs',
    );
  // Files that state no nodata value say nothing of their missing values: CHIRPS's write −9999 at
  // sea with no tag, which would be answered as −9999 mm. The user says which it is.
  if (o.nodata === undefined && !first.tagged)
    throw bad(
      `its files state no nodata value: pass --nodata=-9999 if a value marks missing data (CHIRPS's GeoTIFFs write -9999 at sea), or --nodata none if every value is data. It is never guessed.`,
      'nodata',
    );
  const nodata = o.nodata === 'none' ? null : (o.nodata ?? first.nodata);
  const step = o.step ?? (first.float ? 0.001 : 1);
  if (!(step > 0 && Number.isFinite(step)))
    throw new BuildError('invalid_option', `--step must be > 0; got ${step}.`, { option: 'step' });

  const [west, north] = first.origin;
  const [resX, resY] = first.res;
  const grid = { west, north, resX, resY, width: first.width, height: first.height };
  const before = await readCatalogOrEmpty(o.dir, o.name ?? 'dataset');
  const others = before.rasters.filter((l) => !(l.dataType === decl.dataType && l.subDataType === decl.subDataType));
  const { extent, extentBbox } = settleExtent(decl.extent, grid, knownExtents(others), label);
  const layer: RasterLayerEntry = {
    dataType: decl.dataType,
    subDataType: decl.subDataType,
    ...(decl.isDefault ? { isDefault: true } : {}),
    extent,
    extentBbox,
    timeScale: scale,
    unit: decl.unit,
    description: decl.description,
    crs: 'EPSG:4326',
    bbox: [west, north - first.height * resY, west + first.width * resX, north],
    width: first.width,
    height: first.height,
    resolution: [resX, resY],
    scale: step,
    offset: 0,
    nodata: null,
    files: [{ path: folder, periods: dated.map((d) => d.period) }],
    layout: 'cog-collection',
    cog: { template, tile: first.tile, nodata: nodata ?? null },
  };
  return layer;
}

interface Dated {
  period: string;
  file: string;
}

/** The dates of a template from --dates, each with its file. */
async function fromTemplate(
  o: CogAddOptions,
  scale: RasterTimeScale,
  bad: (why: string, option?: string) => BuildError,
): Promise<Dated[]> {
  const m = /^(.+)\.\.(.+)$/.exec(o.dates ?? '');
  if (!m) throw bad('a template needs its dates: --dates FIRST..LAST (e.g. 2024-01-01..2024-12-31).', 'dates');
  const cal = CALENDARS[calendarOf(scale)];
  const [a, b] = [m[1]!, m[2]!].map((d) => cal.ordinalOfKey(normalisePeriod(scale, d, '--dates')));
  if (!(Number.isFinite(a) && Number.isFinite(b) && b! >= a!))
    throw bad(`--dates ${o.dates} is not a first and a later last ${scale} date.`, 'dates');
  if (b! - a! + 1 > MAX_DATES) throw bad(`--dates spans more than ${MAX_DATES} dates.`, 'dates');
  const out: Dated[] = [];
  const missing: string[] = [];
  const periods = Array.from({ length: b! - a! + 1 }, (_, i) => cal.keyOf(a! + i));
  const there = new Array<boolean>(periods.length);
  const files = periods.map((p) => (isForeignPath(o.source) ? cogPath(o.source, p) : resolve(cogPath(o.source, p))));
  await runLimited(
    files.map((f, i) => async () => {
      there[i] = isForeignPath(f) ? (await urlKeys(f).size('')) !== null : existsSync(f);
    }),
    isForeignPath(o.source) ? 6 : 1,
  );
  periods.forEach((period, i) => {
    if (there[i]) out.push({ period, file: files[i]! });
    else missing.push(`${period} (${files[i]})`);
  });
  if (missing.length > 0)
    throw bad(
      `${missing.length} of the dates asked have no file: ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''}. Ask the dates the files hold; a collection is never filled in.`,
      'dates',
    );
  return out;
}

type StacNode = {
  type?: string;
  features?: StacNode[];
  links?: Array<{ rel?: string; href?: string }>;
  properties?: { datetime?: string | null; start_datetime?: string };
  assets?: Record<string, { href?: string; type?: string; roles?: string[] }>;
};

/** The items of a static STAC catalog, collection, item or FeatureCollection, each dated with its GeoTIFF. */
async function fromStac(
  o: CogAddOptions,
  scale: RasterTimeScale,
  bad: (why: string, option?: string) => BuildError,
): Promise<Dated[]> {
  const items: Array<{ item: StacNode; at: string }> = [];
  const read = async (path: string): Promise<StacNode> => {
    let text: string;
    try {
      text = isForeignPath(path)
        ? new TextDecoder().decode((await urlKeys(path).bytes('', MAX_TEXT_BYTES)) ?? new Uint8Array())
        : await readFile(path, 'utf8');
      return JSON.parse(text) as StacNode;
    } catch (err) {
      throw bad(`${path} is not a STAC JSON file (${(err as Error).message}).`);
    }
  };
  /** `href` as read from the JSON at `at`: a path beside it, or a URL. */
  const beside = (at: string, href: string) =>
    isForeignPath(href) ? href : isForeignPath(at) ? new URL(href, at).href : resolve(dirname(at), href);
  const walk = async (node: StacNode, at: string, depth: number): Promise<void> => {
    if (items.length > MAX_DATES) return;
    if (node.type === 'Feature') items.push({ item: node, at });
    else if (node.type === 'FeatureCollection') for (const f of node.features ?? []) items.push({ item: f, at });
    else if (node.type === 'Catalog' || node.type === 'Collection') {
      if (depth > 4) throw bad('nests catalogs more than four deep.');
      for (const l of node.links ?? []) {
        if (typeof l.href !== 'string') continue;
        const href = beside(at, l.href);
        if (l.rel === 'item') items.push({ item: await read(href), at: href });
        else if (l.rel === 'child') await walk(await read(href), href, depth + 1);
      }
    } else throw bad(`${at} is a STAC ${String(node.type)}; this reads catalogs, collections, items and item lists.`);
  };
  const start = isForeignPath(o.source) ? o.source : resolve(o.source);
  await walk(await read(start), start, 0);
  return items.map(({ item, at }) => {
    const when = item.properties?.datetime ?? item.properties?.start_datetime;
    if (typeof when !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(when))
      throw bad(`${at}: an item has no datetime (properties.datetime): its date would have to be guessed.`);
    const period = normalisePeriod(
      scale,
      scale === 'annual' ? when.slice(0, 4) : scale === 'monthly' ? when.slice(0, 7) : when.slice(0, 10),
      at,
    );
    const assets = Object.entries(item.assets ?? {});
    const tiffs = o.asset
      ? assets.filter(([k]) => k === o.asset)
      : assets.filter(([, a]) => /image\/tiff|geotiff/i.test(a.type ?? '') || /\.tiff?$/i.test(a.href ?? ''));
    if (tiffs.length !== 1 || typeof tiffs[0]![1].href !== 'string')
      throw bad(
        `${at}: ${o.asset ? `has no asset "${o.asset}"` : `has ${tiffs.length} GeoTIFF assets (${tiffs.map(([k]) => k).join(', ') || 'none'})`}; name the one to read with --asset (its assets: ${assets.map(([k]) => k).join(', ')}).`,
        'asset',
      );
    const href = tiffs[0]![1].href!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(href) && !isForeignPath(href))
      throw bad(`${at}: its asset is at ${href}; this reads files by path or http(s) URL.`);
    return { period, file: beside(at, href) };
  });
}

/** The longest folder every path lies in. */
function commonFolder(paths: string[]): string {
  const parts = paths.map((p) => p.split('/').slice(0, -1));
  const out: string[] = [];
  for (let k = 0; parts.every((p) => k < p.length && p[k] === parts[0]![k]); k++) out.push(parts[0]![k]!);
  if (out.length === 0)
    throw new BuildError(
      'invalid_input',
      'A collection’s files must lie in a folder of the dataset, not at its root.',
      {},
    );
  return out.join('/');
}

/** The template of `name` (a path relative to the folder) for `period`: its date parts as tokens. */
function templateOf(name: string, period: string, scale: RasterTimeScale): string {
  const [y, m, d] = period.split('-');
  // The date as files write it: yyyy mm dd with one separator (or none), or yyyy mm, or yyyy.
  const forms = scale === 'annual' ? [[y]] : scale === 'monthly' ? [[y, m]] : [[y, m, d]];
  for (const f of forms) {
    const re = new RegExp(`(?<![0-9])${f.join('([._-]?)')}(?![0-9])`);
    const hit = re.exec(name);
    if (!hit) continue;
    const seps = hit.slice(1);
    const tokens = ['{yyyy}', '{mm}', '{dd}'].slice(0, f.length);
    const replaced = tokens.map((t, i) => t + (seps[i] ?? '')).join('');
    // A year folder before the name (CHIRPS's p05/2024/…) is a token too.
    return name
      .slice(0, hit.index)
      .replace(new RegExp(`(^|/)${y}(/)`, 'g'), '$1{yyyy}$2')
      .concat(replaced, name.slice(hit.index + hit[0].length));
  }
  return name;
}

interface Header {
  width: number;
  height: number;
  tile: [number, number];
  origin: [number, number];
  res: [number, number];
  epsg: number | null;
  nodata: number | null;
  /** The file has a nodata tag (NaN included, which the reader takes as missing anyway). */
  tagged: boolean;
  float: boolean;
}

/** What one file's header says, refused by name where it is not a tiled, north-up, one-band GeoTIFF. */
async function header(path: string, bad: (why: string, option?: string) => BuildError): Promise<Header> {
  let tiff: Awaited<ReturnType<typeof fromFile>> | undefined;
  try {
    tiff = isForeignPath(path) ? await fromUrl(path, { allowFullFile: false }) : await fromFile(path);
    const image = await tiff.getImage(0);
    if (!image.isTiled) throw bad(`${path} is not tiled (a COG is): rewrite it with gdal_translate -of COG.`);
    if (image.getSamplesPerPixel() !== 1)
      throw bad(`${path} has ${image.getSamplesPerPixel()} bands; a collection's files have one.`);
    const [rx, ry] = image.getResolution();
    if (!(rx! > 0 && ry! < 0)) throw bad(`${path} is not north up (pixel size ${rx}, ${ry}).`);
    const keys = (image.getGeoKeys() ?? {}) as Record<string, number | undefined>;
    const epsg = keys.ProjectedCSTypeGeoKey ?? keys.GeographicTypeGeoKey ?? null;
    const [ox, oy] = image.getOrigin();
    const nd = image.getGDALNoData();
    return {
      width: image.getWidth(),
      height: image.getHeight(),
      tile: [image.getTileWidth(), image.getTileHeight()],
      origin: [ox!, oy!],
      res: [rx!, -ry!],
      epsg: epsg === undefined || epsg === 32767 ? null : epsg,
      nodata: nd === null || !Number.isFinite(nd) ? null : nd,
      tagged: nd !== null,
      float: image.getSampleFormat() === 3,
    };
  } catch (err) {
    if (err instanceof BuildError) throw err;
    throw bad(`${path} is not a GeoTIFF geotiff.js reads (${(err as Error).message}).`);
  } finally {
    await (tiff as unknown as { close?: () => Promise<void> } | undefined)?.close?.();
  }
}
