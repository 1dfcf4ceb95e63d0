/**
 * Packages that only some commands need (native DuckDB for station builds
 * and indexing, gdal3.js for raster builds) are optional
 * peer dependencies, so a web app that installs the library does not get
 * them (README, "Install"). When one is missing, Node throws
 * ERR_MODULE_NOT_FOUND; this turns that into a sentence naming what to
 * install.
 */

/** The optional packages, with what needs each. */
export const OPTIONAL_PACKAGES: Record<string, string> = {
  '@duckdb/node-api':
    'station builds (`build --stations`, `demo`, `index`) and station SQL in Node (`sql`, `engine.sql`)',
  'gdal3.js': 'raster builds (`build --layer`, `demo`)',
};

/**
 * The message for an error caused by a missing optional package, or
 * undefined when `err` is anything else.
 */
export function missingPackageMessage(err: unknown, command: string): string | undefined {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (!e || (e.code !== 'ERR_MODULE_NOT_FOUND' && e.code !== 'MODULE_NOT_FOUND') || typeof e.message !== 'string')
    return undefined;
  const name = Object.keys(OPTIONAL_PACKAGES).find(
    (p) => e.message!.toString().includes(`'${p}`) || e.message!.toString().includes(`"${p}`),
  );
  if (!name) return undefined;
  return (
    `climate-query ${command}: this needs the optional package ${name}, which is not installed.\n` +
    `It is used for ${OPTIONAL_PACKAGES[name]}. Install it next to climate-query:\n  npm install ${name}`
  );
}
