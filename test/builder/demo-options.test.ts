/**
 * The demo generator refuses dates it would have to guess: a day that does
 * not exist, or an end before the start, names the option and writes nothing.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeDemoStationInputs } from '../../src/builder/demo-stations.ts';

let dir = '';
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('demo station dates', () => {
  for (const [options, option] of [
    [{ start: '2024-02-30' }, 'start'],
    [{ start: '2024-13-01' }, 'start'],
    [{ end: '24-12-31' }, 'end'],
    [{ start: '2024-06-01', end: '2024-05-31' }, 'end'],
  ] as const) {
    it(`refuses ${JSON.stringify(options)}, naming ${option}`, async () => {
      dir = await mkdtemp(join(tmpdir(), 'cq-demo-options-'));
      await expect(writeDemoStationInputs(dir, { stations: 1, ...options })).rejects.toMatchObject({
        name: 'BuildError',
        code: 'invalid_option',
        option,
      });
      expect(await readdir(dir)).toEqual([]);
    });
  }
});
