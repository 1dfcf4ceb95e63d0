/**
 * The site as `npm run build` makes it, in a temporary folder, with a copy
 * of a dataset at data/demo/ (serve refuses symlinks out of its root), for
 * tests that need the built service worker and its precache list.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const repo = new URL('../..', import.meta.url).pathname;

/** A built site on disk. */
export interface BuiltSite {
  /** The site's folder (index.html, sw.js, assets/, data/demo/). */
  site: string;
  /** The dataset's folder inside it. */
  dataset: string;
  /** The precache list the build wrote into sw.js. */
  manifest: { version: string; files: string[]; bytes: number };
  remove(): Promise<void>;
}

/** Builds the site (without public/) and copies `dataset` into it as data/demo/. */
export async function buildSite(dataset: string): Promise<BuiltSite> {
  const out = await mkdtemp(join(tmpdir(), 'cq-built-'));
  const site = join(out, 'site');
  await exec(join(repo, 'node_modules/.bin/vite'), ['build', '--outDir', site, '--emptyOutDir', '--logLevel', 'warn'], {
    cwd: repo,
    env: { ...process.env, CQ_NO_PUBLIC: '1' },
  });
  await mkdir(join(site, 'data'), { recursive: true });
  await cp(dataset, join(site, 'data/demo'), { recursive: true });
  const sw = await readFile(join(site, 'sw.js'), 'utf8');
  const m = /^self\.__CLIMATE_QUERY_PRECACHE__ = (\{.*?\});\n/.exec(sw);
  if (!m) throw new Error('sw.js carries no precache list: is scripts/vite-precache-plugin.ts in vite.config.ts?');
  return {
    site,
    dataset: join(site, 'data/demo'),
    manifest: JSON.parse(m[1]!),
    remove: () => rm(out, { recursive: true, force: true }),
  };
}
