/**
 * The test tiers, by a test file's name, so a file's tier is seen where it is listed and never
 * depends on what its text happens to mention:
 * - `*.browser.test.ts`: drives real Chromium (the Chromium helpers, Vite, a served app);
 * - `*.int.test.ts`: needs the built fixtures (`inject`), runs a build (DuckDB, GDAL), another
 *   process or a real server, or waits on the clock (a timeout, a measured link);
 * - any other `*.test.ts`: unit — pure functions and small committed fixtures, no build, no server,
 *   no timing, under half a minute in all.
 * `npm test` runs the three; `npm run test:unit` the first alone; `.ci/run` runs them one after the
 * other and prints each one's time. test/tiers.test.ts keeps names honest: a unit-named file that
 * uses what only the other tiers may is a failure naming the file.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

export type Tier = 'unit' | 'integration' | 'browser';

/** The tier of a test file, by its name. */
export function tierOfName(path: string): Tier {
  if (path.endsWith('.browser.test.ts')) return 'browser';
  return path.endsWith('.int.test.ts') ? 'integration' : 'unit';
}

/** What only a browser-tier file may use. */
export const BROWSER_USES = /launchChromium|useServedApp|openAppPage|startVite|served-app\.ts|app-page\.ts/;
/** What only an integration- or browser-tier file may use: builds, fixtures, processes, servers, the clock. */
export const INTEGRATION_USES =
  /\binject\(|buildRasterLayer|buildStations|buildDemo|writeInputGeoTiff|DuckDBInstance|helpers\/cli\.ts|gdal|execFile|spawn|startServer|startRangeServer|createServer|createNodeEngine|fault-server|hosts\.ts|performance\.now\(\)/;

/** Every `*.test.ts` under `dir` (repository-relative), by tier. */
export function testFilesByTier(root: string, dir = 'test'): Record<Tier, string[]> {
  const out: Record<Tier, string[]> = { unit: [], integration: [], browser: [] };
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith('.test.ts')) out[tierOfName(e.name)].push(relative(root, path));
    }
  };
  walk(join(root, dir));
  for (const files of Object.values(out)) files.sort();
  return out;
}
