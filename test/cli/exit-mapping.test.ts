/**
 * The error-to-exit mapping itself (src/node/cli-exit.ts), for every build
 * error code, and the rule that makes it whole: a build throws nothing but
 * its one error (every `throw` in src/builder names BuildError).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BuildError, type BuildErrorCode } from '../../src/builder/build-error.ts';
import { ClimateQueryError } from '../../src/contract/errors.ts';
import { exitFor } from '../../src/node/cli-exit.ts';

const CODES: Record<BuildErrorCode, number> = {
  invalid_input: 2,
  invalid_option: 2,
  unreadable_input: 2,
  conflict: 2,
  dataset_damaged: 1,
  dataset_busy: 1,
  unreachable: 1,
  internal: 1,
};

describe('exit statuses', () => {
  it.each(Object.entries(CODES))('a build error %s exits %i and says "Build error"', (code, status) => {
    const out = exitFor(new BuildError(code as BuildErrorCode, 'why'));
    expect(out).toEqual({ status, text: 'Build error: why' });
  });

  it('a contract error exits 2 for the request, 1 for the data, naming its code; anything else exits 1', () => {
    expect(exitFor(new ClimateQueryError('invalid_wkt', 'bad'))).toEqual({
      status: 2,
      text: 'Error (invalid_wkt): bad',
    });
    expect(exitFor(new ClimateQueryError('dataset_unavailable', 'gone')).status).toBe(1);
    expect(exitFor(new ClimateQueryError('dataset_changed', 'moved')).status).toBe(1);
    expect(exitFor(new Error('boom')).status).toBe(1);
  });

  it('every error a build throws is its one BuildError (no plain Error in src/builder)', () => {
    const dir = join(import.meta.dirname, '../../src/builder');
    // Every room of the builder (dataset/ included), read recursively.
    const plain = readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) =>
        readFileSync(join(dir, f), 'utf8')
          .split('\n')
          .map((line, i) => ({ at: `${f}:${i + 1}`, line }))
          .filter(({ line }) => /\bthrow new (?!BuildError\b)\w*Error\b/.test(line)),
      );
    expect(plain.map((p) => `${p.at} ${p.line.trim()}`)).toEqual([]);
  });
});
