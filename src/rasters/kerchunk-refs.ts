/**
 * A kerchunk reference: a Zarr store described as a JSON map from each key to its bytes — inline
 * text, `base64:…`, or a range `[url, offset, length]` (or `[url]`, the whole file) of another file,
 * typically a NetCDF-4/HDF5 file on a static host. Version 0 is the map itself; version 1 is
 * `{version: 1, templates, refs}`, where a url may be `{{name}}` of a template. (`gen`, which makes
 * keys from a pattern, is refused by name.) Parsed once, bounded, and never trusted: a range is
 * checked to be whole numbers within a chunk's largest stored size where it is read. Free of
 * node:* imports: the engine reads references in the browser too.
 */

/** Where a key's bytes are. */
export type KerchunkRef =
  | { inline: Uint8Array }
  /** `url` as the reference gives it (relative to the reference's own place, or absolute); `length` null for the whole file. */
  | { url: string; offset: number; length: number | null };

/** Most keys one reference may hold (a NetCDF file of 10⁶ chunks). */
export const MAX_REFERENCE_KEYS = 1_000_000;

/** A parsed reference: where each key's bytes are. */
export interface KerchunkRefs {
  /** The keys known without reading more: every key of a JSON reference; a Parquet one's metadata. */
  keys(): IterableIterator<string>;
  /** Where `key`'s bytes are; undefined where the reference has none (a chunk left out). */
  get(key: string): Promise<KerchunkRef | undefined>;
  /** Every url its chunks are read from, each once, as it gives them. */
  urls(): Promise<string[]>;
}

/** Whether `json` (a parsed JSON document) looks like a kerchunk reference rather than a STAC document. */
export function isKerchunkReference(json: unknown): boolean {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return false;
  const o = json as Record<string, unknown>;
  if (o.version === 1 && typeof o.refs === 'object') return true;
  return '.zgroup' in o || '.zattrs' in o || '.zmetadata' in o || 'zarr.json' in o;
}

/** Parses reference `json`; `bad` makes the error naming what is wrong. */
export function parseKerchunk(json: unknown, bad: (why: string) => Error): KerchunkRefs {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw bad('is not a JSON object.');
  const o = json as Record<string, unknown>;
  let refs: Record<string, unknown>;
  let templates: Record<string, unknown> = {};
  if ('version' in o) {
    if (o.version !== 1) throw bad(`is kerchunk reference version ${String(o.version)}; this reads 0 and 1.`);
    if (o.gen !== undefined && (!Array.isArray(o.gen) || o.gen.length > 0))
      throw bad('generates keys ("gen"); write the reference with its keys listed.');
    if (typeof o.refs !== 'object' || o.refs === null) throw bad('has no "refs".');
    refs = o.refs as Record<string, unknown>;
    if (typeof o.templates === 'object' && o.templates !== null) templates = o.templates as Record<string, unknown>;
  } else refs = o;
  const names = Object.keys(refs);
  if (names.length > MAX_REFERENCE_KEYS) throw bad(`holds ${names.length} keys, more than ${MAX_REFERENCE_KEYS}.`);
  const url = (u: unknown, key: string): string => {
    if (typeof u !== 'string' || u === '') throw bad(`gives key ${key} no url.`);
    const m = /^\{\{(\w+)\}\}(.*)$/.exec(u);
    if (!m) return u;
    const t = templates[m[1]!];
    if (typeof t !== 'string') throw bad(`gives key ${key} the template {{${m[1]}}}, which it does not define.`);
    return t + m[2]!;
  };
  const count = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
  const text = new TextEncoder();
  const get = (key: string): KerchunkRef | undefined => {
    if (!Object.hasOwn(refs, key)) return undefined;
    const v = refs[key];
    if (typeof v === 'string') {
      if (!v.startsWith('base64:')) return { inline: text.encode(v) };
      try {
        return { inline: Uint8Array.from(atob(v.slice(7)), (c) => c.charCodeAt(0)) };
      } catch {
        throw bad(`gives key ${key} bytes that are not base64.`);
      }
    }
    // Metadata documents may be stored as JSON values rather than text.
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return { inline: text.encode(JSON.stringify(v)) };
    if (Array.isArray(v) && v.length === 1) return { url: url(v[0], key), offset: 0, length: null };
    if (Array.isArray(v) && v.length === 3 && count(v[1]) && count(v[2]))
      return { url: url(v[0], key), offset: v[1] as number, length: v[2] as number };
    throw bad(`gives key ${key} ${JSON.stringify(v).slice(0, 80)}, not text, base64, [url] or [url, offset, length].`);
  };
  return {
    keys: () => names.values(),
    get: async (key) => get(key),
    async urls() {
      const out = new Set<string>();
      for (const k of names) {
        const ref = get(k);
        if (ref && !('inline' in ref)) out.add(ref.url);
      }
      return [...out];
    },
  };
}

/**
 * `url` of a reference (relative to the reference itself, at `refPath`, or absolute) as a dataset
 * path or an absolute http(s) URL: what the engine's dataset opens, confining a relative one to the
 * dataset and an absolute one to the origins it may read. Other schemes (s3://, file://) are null.
 */
export function referencedPath(refPath: string, url: string): string | null {
  if (/^https?:\/\//i.test(url)) return url;
  if (/^[a-z][a-z0-9+.-]*:/i.test(url)) return null;
  if (/^https?:\/\//i.test(refPath)) return new URL(url, refPath).href;
  const folder = refPath.includes('/') ? refPath.slice(0, refPath.lastIndexOf('/') + 1) : '';
  // Relative to the reference's folder; dataset-path.ts refuses what would climb out of the dataset.
  return folder + url.replace(/^(\.\/)+/, '');
}
