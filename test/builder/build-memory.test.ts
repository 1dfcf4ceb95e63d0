// The memory a build gives DuckDB: the default, or the operator's stated size; never a guess.
import { describe, expect, it } from 'vitest';
import { BUILD_MEMORY_LIMIT, buildMemoryLimit } from '../../src/builder/build-duckdb.ts';
import { BuildError } from '../../src/builder/build-error.ts';

describe('CLIMATE_QUERY_BUILD_MEMORY', () => {
  it('is the default when unset or empty, and the stated size otherwise, in MB', () => {
    expect(buildMemoryLimit({})).toBe(BUILD_MEMORY_LIMIT);
    expect(buildMemoryLimit({ CLIMATE_QUERY_BUILD_MEMORY: ' ' })).toBe(BUILD_MEMORY_LIMIT);
    expect(buildMemoryLimit({ CLIMATE_QUERY_BUILD_MEMORY: '768MB' })).toBe('768MB');
    expect(buildMemoryLimit({ CLIMATE_QUERY_BUILD_MEMORY: '2GB' })).toBe('2000MB');
    expect(buildMemoryLimit({ CLIMATE_QUERY_BUILD_MEMORY: '1.5 gb' })).toBe('1500MB');
  });

  it('refuses what is not a size, or less than 256 MB, naming the variable', () => {
    for (const bad of ['lots', '512', '100MB', '-1GB', '1TB', '0.1GB']) {
      let err: unknown;
      try {
        buildMemoryLimit({ CLIMATE_QUERY_BUILD_MEMORY: bad });
      } catch (e) {
        err = e;
      }
      expect(err, bad).toBeInstanceOf(BuildError);
      expect((err as BuildError).option).toBe('CLIMATE_QUERY_BUILD_MEMORY');
      expect((err as Error).message).toContain(`"${bad}"`);
    }
  });
});
