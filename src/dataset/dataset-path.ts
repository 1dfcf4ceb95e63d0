/**
 * Confinement of the paths a catalog lists. A catalog is data, possibly
 * written by someone else: a folder-based server opened
 * `../../../../etc/hostname` when a catalog named it, and a remote catalog
 * could send reads to any host (issue 11). Every listed path must be
 * relative, inside the dataset root, and name no other host.
 */
import { ClimateQueryError } from '../contract/errors.ts';
import { truncate } from '../contract/quote.ts';

/** Throws `dataset_unavailable` unless `path` is a plain relative path inside the dataset root. */
export function checkDatasetPath(path: unknown, catalogWhere: string): string {
  const bad = (why: string) =>
    new ClimateQueryError('dataset_unavailable', `${catalogWhere} lists the file ${JSON.stringify(truncate(String(path)))}, which ${why}; a catalog may list only relative paths inside the dataset folder. Rebuild the dataset.`);
  if (typeof path !== 'string' || path === '') throw bad('is not a path');
  // A scheme ("http:", "file:", "C:") or a leading slash would leave the root.
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('/') || path.startsWith('\\')) throw bad('is absolute');
  if (path.includes('\\') || path.includes('\0') || path.includes('?') || path.includes('#')) throw bad('holds "\\", "?", "#" or a NUL');
  const segments = path.split('/');
  if (segments.some((s) => s === '..' || /%2e%2e|%2f/i.test(s))) throw bad('climbs out with ".."');
  return path;
}

/**
 * Checks every path a catalog lists: any string under a key named `path`,
 * `store`, `index` or `coverage`, or inside `parquet`, at any depth (walked without recursion, so
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
        const isPathKey = k === 'path' || k === 'store' || k === 'index' || k === 'coverage' || pathKey;
        if (typeof v === 'string' ? isPathKey : typeof v === 'object' && v !== null) stack.push({ value: v, pathKey: isPathKey || k === 'parquet' });
      }
    }
  }
}
