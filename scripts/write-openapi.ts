// Writes docs/openapi.json from src/engine/openapi.ts (`npm run openapi`).
// test/contract/openapi.int.test.ts fails when the committed copy is stale.
import { writeFileSync } from 'node:fs';
import { openApiDocument } from '../src/engine/openapi.ts';
import { packageVersion } from '../src/node/package-version.ts';

const out = new URL('../docs/openapi.json', import.meta.url);
writeFileSync(out, `${JSON.stringify(openApiDocument(packageVersion()), null, 2)}\n`);
console.log(`wrote ${out.pathname}`);
