/**
 * Vite plugin: gives the built service worker the list of files that make
 * up the app (index.html, every JS/CSS chunk, the offline basemap's data
 * and font) and a version named by their content, so the app opens with no
 * connection after one online visit (docs/offline.md). The list is written
 * as one statement at the top of sw.js; a changed build therefore changes
 * sw.js itself, which is how browsers notice a new service worker.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Plugin } from 'vite';

/** What the service worker reads from `self.__CLIMATE_QUERY_PRECACHE__`. */
export interface PrecacheManifest {
  /** Hash of every listed file's content: names the cache. */
  version: string;
  /** Paths relative to sw.js. */
  files: string[];
  /** Their total size in bytes (reported by the build and the docs). */
  bytes: number;
}

/**
 * Files never precached: source maps (only for developers), sw.js itself,
 * and DuckDB-WASM with the module that loads it (the SQL panel's engine:
 * 35 MB for the few who use SQL would be ten times the rest of the app).
 */
const SKIP = /\.map$|^sw\.js$|duckdb/i;

/** The plugin; `swFileName` is the service worker's output name. */
export function precacheManifest(swFileName = 'sw.js'): Plugin {
  return {
    name: 'climate-query-precache',
    apply: 'build',
    // Measured on the files as written: later plugins still rewrite chunks after generateBundle.
    writeBundle(options, bundle) {
      const dir = options.dir;
      if (!dir || !bundle[swFileName]) return;
      const files = Object.keys(bundle)
        .filter((f) => !SKIP.test(f))
        .sort();
      const hash = createHash('sha256');
      let bytes = 0;
      for (const f of files) {
        const content = readFileSync(join(dir, f));
        bytes += content.byteLength;
        hash.update(f).update('\0').update(content).update('\0');
      }
      const manifest: PrecacheManifest = { version: hash.digest('hex').slice(0, 16), files, bytes };
      const swPath = join(dir, swFileName);
      writeFileSync(
        swPath,
        `self.__CLIMATE_QUERY_PRECACHE__ = ${JSON.stringify(manifest)};\n${readFileSync(swPath, 'utf8')}`,
      );
      this.info(`precache ${manifest.version}: ${files.length} files, ${bytes} bytes`);
    },
  };
}
