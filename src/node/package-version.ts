/** The installed package's version, for `--version` and the OpenAPI document's `info.version`. */
import { readFileSync } from 'node:fs';

/** The `version` of climate-query's package.json. */
export function packageVersion(): string {
  // ../../package.json from both src/node/ (a clone) and dist/node/ (the package).
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
}
