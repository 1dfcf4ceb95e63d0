/**
 * The test tiers, read from each test file's own imports and calls so a new
 * file lands in its tier without a list to update:
 * - browser: drives real Chromium (the Chromium helpers, Vite, a served app);
 * - integration: needs the built fixtures (`inject`), runs a build (DuckDB,
 *   GDAL), another process or a real server;
 * - unit: everything else — pure functions and small committed fixtures, no
 *   build, under a minute in all.
 * `npm test` runs the three; `npm run test:unit` the first alone; `.ci/run`
 * runs them one after the other and prints each one's time.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export type Tier = 'unit' | 'integration' | 'browser';

const BROWSER = /launchChromium|useServedApp|openAppPage|startVite|served-app\.ts|app-page\.ts/;
const INTEGRATION =
  /\binject\(|buildRasterLayer|buildStations|buildDemo|writeInputGeoTiff|DuckDBInstance|helpers\/cli\.ts|gdal|execFile|spawn|startServer|startRangeServer|createNodeEngine|fault-server|hosts\.ts/;

/** The tier of a test file, by its source text. */
export function tierOf(source: string): Tier {
  if (BROWSER.test(source)) return 'browser';
  return INTEGRATION.test(source) ? 'integration' : 'unit';
}

/** Every `*.test.ts` under `dir` (repository-relative), by tier. */
export function testFilesByTier(root: string, dir = 'test'): Record<Tier, string[]> {
  const out: Record<Tier, string[]> = { unit: [], integration: [], browser: [] };
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith('.test.ts')) out[tierOf(readFileSync(path, 'utf8'))].push(relative(root, path));
    }
  };
  walk(join(root, dir));
  for (const files of Object.values(out)) files.sort();
  return out;
}
