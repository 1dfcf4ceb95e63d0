/**
 * The README's claims that the repository itself can check: the files and documents it links
 * exist, the commands it shows are commands the CLI has (and `import` formats the registry
 * reads), the two commands of a fresh machine are package scripts, the Node version it states is
 * the one package.json requires, and its test tiers are the names test/tiers.ts sorts by.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STATION_FORMATS } from '../../src/builder/import/station-formats.ts';
import { tierOfName } from '../tiers.ts';

const root = join(import.meta.dirname, '../..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  engines: { node: string };
};

describe('the README', () => {
  it('links only files that are there', () => {
    const links = [...readme.matchAll(/\]\(((?:docs|src|test|bench|scripts)\/[^)#\s]+)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(10);
    expect(links.filter((l) => !existsSync(join(root, l)))).toEqual([]);
  });

  it('shows only commands the CLI has, and import formats the registry reads', () => {
    const cli = readFileSync(join(root, 'src/node/cli.ts'), 'utf8');
    const shown = new Set([...readme.matchAll(/npx climate-query ([a-z][a-z-]*)/g)].map((m) => m[1]!));
    expect(shown.size).toBeGreaterThan(5);
    for (const c of shown) expect(cli, c).toMatch(new RegExp(`\\b${c}Command\\b`));
    const formats = [...readme.matchAll(/npx climate-query import ([a-z-]+)/g)].map((m) => m[1]!);
    for (const f of formats) expect(Object.keys(STATION_FORMATS)).toContain(f);
  });

  it('gives the two commands of a fresh machine as package scripts', () => {
    expect(readme).toMatch(/npm install && npm start/);
    expect(readme).toMatch(/\nnpm test\s/);
    expect(pkg.scripts.start).toBeTruthy();
    expect(pkg.scripts.test).toBeTruthy();
  });

  it('states the Node version package.json requires', () => {
    const stated = /Node (\d+\.\d+) or newer/.exec(readme)?.[1];
    expect(pkg.engines.node).toContain(`>=${stated}`);
  });

  it('names the test tiers as test/tiers.ts sorts them', () => {
    expect(tierOfName('x.int.test.ts')).toBe('integration');
    expect(tierOfName('x.browser.test.ts')).toBe('browser');
    expect(tierOfName('x.test.ts')).toBe('unit');
    for (const suffix of ['`*.int.test.ts`', '`*.browser.test.ts`', '`*.test.ts`']) expect(readme).toContain(suffix);
  });
});
