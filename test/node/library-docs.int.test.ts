/**
 * docs/library.md names the package's API: every name it gives for an
 * import path (the table of imports, the prose naming builds, each
 * `import { … } from 'climate-query…'` in its code) is a real export of
 * that path's module, so the reference cannot drift from the code.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const repo = join(import.meta.dirname, '../..');
/** The source module of each import path (package.json "exports"; vite.lib.config.ts builds them). */
const MODULES: Record<string, string> = {
  'climate-query': 'src/index.ts',
  'climate-query/sql-wasm': 'src/sql/duckdb-wasm-runner.ts',
  'climate-query/node': 'src/node/index.ts',
  'climate-query/vite': 'src/vite/climate-query-plugin.ts',
};
/** Words in backticks that are not API names: types, generic words. */
const NOT_NAMES = new Set(['validators', 'types']);

async function exportsOf(path: string): Promise<Set<string>> {
  const mod = (await import(join(repo, MODULES[path]!))) as Record<string, unknown>;
  return new Set(Object.keys(mod));
}

describe('docs/library.md', () => {
  it('every API name it gives is an export of the import path it names', async () => {
    const text = await readFile(join(repo, 'docs/library.md'), 'utf8');
    const named: Array<[string, string]> = [];
    // The table: | `climate-query/node` | Node: `createNodeEngine`, `startServer`, … |
    for (const m of text.matchAll(/^\| `(climate-query[^`]*)` \| ([^|]*)\|$/gm)) {
      if (!MODULES[m[1]!]) continue;
      for (const n of m[2]!.matchAll(/`(\w+)(?:\(\))?`/g)) if (!NOT_NAMES.has(n[1]!)) named.push([m[1]!, n[1]!]);
    }
    // Code: import { a, b } from 'climate-query/…';
    for (const m of text.matchAll(/import \{([^}]*)\} from '(climate-query[^'?]*)'/g)) {
      for (const n of m[1]!.split(',').map((s) => s.trim().replace(/^type /, ''))) if (n) named.push([m[2]!, n]);
    }
    // Prose: "Builds (`buildStations`, …; `climate-query/node`)".
    const builds = /Builds \(([^;]*); `(climate-query\/node)`\)/.exec(text);
    expect(builds, 'the sentence naming the builds').not.toBeNull();
    for (const n of builds![1]!.matchAll(/`(\w+)`/g)) named.push([builds![2]!, n[1]!]);

    expect(named.length).toBeGreaterThan(15);
    const missing: string[] = [];
    for (const [path, name] of named) if (!(await exportsOf(path)).has(name)) missing.push(`${path}: ${name}`);
    expect(missing).toEqual([]);
  });
});
