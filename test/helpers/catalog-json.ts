/**
 * A dataset's catalog.json as a test reads or edits it: parsed, with each layer file's periods as
 * their list (catalog.json writes a run where it is shorter, src/dataset/period-runs.ts). Written
 * back, the lists are as valid as the runs.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { expandPeriods } from '../../src/dataset/period-runs.ts';

/** A test's view of a JSON file it reads, or damages on purpose. */
type Json = any;

function withLists(c: Json): Json {
  for (const l of Array.isArray(c?.rasters) ? c.rasters : []) {
    for (const f of Array.isArray(l?.files) ? l.files : []) {
      if (f && typeof f.periods === 'object' && f.periods !== null && !Array.isArray(f.periods)) {
        const list = expandPeriods(l.timeScale, f.periods);
        if (Array.isArray(list)) f.periods = list;
      }
    }
  }
  return c;
}

/** catalog.json at `path`, parsed, periods as lists. */
export async function catalogJson(path: string): Promise<Json> {
  return withLists(JSON.parse(await readFile(path, 'utf8')));
}

/** The same, read synchronously. */
export function catalogJsonSync(path: string): Json {
  return withLists(JSON.parse(readFileSync(path, 'utf8')));
}
