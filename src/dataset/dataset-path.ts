/**
 * Confinement of the paths a catalog lists. A catalog is data, possibly
 * written by someone else: a folder-based server opened
 * `../../../../etc/hostname` when a catalog named it, and a remote catalog
 * could send reads to any host (docs/reliability.md). Every listed path must be
 * relative, inside the dataset root, and name no other host.
 */
import { ClimateQueryError } from '../contract/errors.ts';
import { truncate } from '../contract/quote.ts';

/**
 * The dataset root `base` names, as a URL ending in '/', relative ones against the page (or
 * Worker) address: where catalog.json and every listed file are looked up.
 */
export function datasetRoot(base: string | URL): URL {
  const text = String(base);
  return new URL(text.endsWith('/') ? text : `${text}/`, globalThis.location?.href);
}

/** Throws `dataset_unavailable` unless `path` is a plain relative path inside the dataset root. */
export function checkDatasetPath(path: unknown, catalogWhere: string): string {
  const bad = (why: string) =>
    new ClimateQueryError(
      'dataset_unavailable',
      `${catalogWhere} lists the file ${JSON.stringify(truncate(String(path)))}, which ${why}; a catalog may list only relative paths inside the dataset folder. Rebuild the dataset.`,
    );
  if (typeof path !== 'string' || path === '') throw bad('is not a path');
  // A scheme ("http:", "file:", "C:") or a leading slash would leave the root.
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('/') || path.startsWith('\\')) throw bad('is absolute');
  if (path.includes('\\') || path.includes('?') || path.includes('#')) throw bad('holds "\\", "?" or "#"');
  // URL parsers drop tabs and newlines and trim spaces, so such a path could name another file than it shows.
  if (/[\u0000-\u0020\u007f-\u009f]/.test(path)) throw bad('holds a control character or white space');
  const segments = path.split('/');
  if (segments.some((s) => s === '..' || s === '.' || s === ''))
    throw bad('climbs out with ".." or has an empty or "." segment');
  // A host may decode percent escapes before it looks the file up, some more than once: `.%2E` is
  // `..` there. A decoded separator is kept only between two named parts (a station id "a/b" is the
  // file name `station_id=a%2Fb`), never beside a dot, an empty part or a control character.
  for (const s of segments) {
    const decoded = decodedSegment(s);
    if (decoded === null) throw bad('holds a "%" that is not an escape of two hex digits');
    const parts = decoded.flatMap((d) => d.split(/[/\\]/));
    if (parts.some((d) => d === '.' || d === '..' || d === '' || /[\u0000-\u001f]/.test(d)))
      throw bad('names ".", "..", an empty segment or a control character through percent escapes (%2E, %2F, %5C)');
  }
  return path;
}

/**
 * The forms a host may read segment `s` as: the text, once decoded, twice decoded; null when a `%`
 * is not followed by two hex digits (hosts differ on what such a name is).
 */
function decodedSegment(s: string): string[] | null {
  const forms = [s];
  for (let text = s, i = 0; i < 2 && text.includes('%'); i++) {
    if (/%(?![0-9a-f]{2})/i.test(text)) return i === 0 ? null : forms;
    text = decodeURIComponentSafe(text);
    forms.push(text);
  }
  return forms;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    // Escapes that are not UTF-8: decoded byte by byte, as a host that does not check UTF-8 would.
    return text.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
  }
}

/**
 * A dataset path as a relative URL that every common static host maps to
 * the file: each segment percent-encoded as `encodeURIComponent` does, except
 * `=`, which RFC 3986 allows in a path segment and which Hive-style names
 * (`station_id=689160-99999`) hold. Vite's dev server, `vite preview` and
 * sirv map only the literal `=` to the file; `%3D` fell through to their
 * `index.html` fallback. A `%` in a file name (an id the build had to
 * percent-encode) becomes `%25`, so the host decodes it back to the name.
 */
export function encodeDatasetPath(path: string): string {
  return path
    .split('/')
    .map((segment) => encodeURIComponent(segment).replace(/%3D/g, '='))
    .join('/');
}

/**
 * Checks every path a catalog lists: any string under a key named `path`,
 * `store`, `index`, `coverage` or `preview`, or inside `parquet`, at any depth (walked without recursion, so
 * the format's sections can change without changing this check).
 */
export function checkCatalogPaths(catalog: unknown, catalogWhere: string): void {
  const stack: { value: unknown; pathKey: boolean }[] = [{ value: catalog, pathKey: false }];
  while (stack.length) {
    const { value, pathKey } = stack.pop()!;
    if (typeof value === 'string') {
      if (pathKey) checkDatasetPath(value, catalogWhere);
    } else if (Array.isArray(value)) {
      for (const v of value) if (typeof v === 'object' && v !== null) stack.push({ value: v, pathKey: false });
    } else if (typeof value === 'object' && value !== null) {
      for (const [k, v] of Object.entries(value)) {
        const isPathKey =
          k === 'path' || k === 'store' || k === 'index' || k === 'coverage' || k === 'preview' || pathKey;
        if (typeof v === 'string' ? isPathKey : typeof v === 'object' && v !== null)
          stack.push({ value: v, pathKey: isPathKey || k === 'parquet' });
      }
    }
  }
}
