/**
 * Each test file's name says its tier (test/tiers.ts), and its text agrees: a unit-named file
 * that starts a server, a build or Chromium, or measures time, would run in the fast tier with no
 * fixtures and fail or flake under load; a browser-named one that drives no browser is misfiled.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BROWSER_USES, INTEGRATION_USES, testFilesByTier } from './tiers.ts';

const root = join(import.meta.dirname, '..');
const tiers = testFilesByTier(root);

describe('test tiers by file name', () => {
  it('unit-named files use no build, server, process, browser or clock', () => {
    const misfiled = tiers.unit.filter((f) => {
      const text = readFileSync(join(root, f), 'utf8');
      return BROWSER_USES.test(text) || INTEGRATION_USES.test(text);
    });
    expect(misfiled).toEqual([]);
  });

  it('browser-named files drive a browser; integration-named ones do not', () => {
    const read = (f: string) => readFileSync(join(root, f), 'utf8');
    expect(tiers.browser.filter((f) => !BROWSER_USES.test(read(f)))).toEqual([]);
    expect(tiers.integration.filter((f) => BROWSER_USES.test(read(f)))).toEqual([]);
  });

  it('finds every tier', () => {
    expect(tiers.unit.length).toBeGreaterThan(30);
    expect(tiers.integration.length).toBeGreaterThan(50);
    expect(tiers.browser.length).toBeGreaterThan(15);
  });
});
