/**
 * One mapping from error to exit status for every command (src/node/cli-exit.ts): 2 for the
 * caller's doing (usage, a request the contract refuses, inputs a build cannot take), 1 for the
 * data's or the machine's (no dataset, a damaged one, a timeout). Each command is run as a user
 * runs it, for one case of each.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cli } from '../helpers/cli.ts';

const demo = inject('demoDataset');
const ETOPO = join(import.meta.dirname, '../../data-sources/za-elevation-etopo5.tif');
let work: string;
let damaged: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'cq-exit-'));
  damaged = join(work, 'damaged');
  await cp(demo, damaged, { recursive: true });
  const whole = await readFile(join(damaged, 'catalog.json'), 'utf8');
  await writeFile(join(damaged, 'catalog.json'), whole.slice(0, 500));
});
afterAll(() => rm(work, { recursive: true, force: true }));

const point = JSON.stringify({
  wkts: 'POINT (18.86 -33.93)',
  dataTypes: ['temperature_mean'],
  options: { timeScale: 'daily' },
  startDate: '2024-01-01',
  endDate: '2024-01-02',
});

describe('exit codes: the same rule for every command', () => {
  const cases: Array<[string, () => string[], number, RegExp, string?]> = [
    ['query: a bad request', () => ['query', 'nearest-station', '-', '--data', demo], 2, /invalid_json|invalid/, '{'],
    [
      'query: no dataset there',
      () => ['query', 'nearest-station', '-', '--data', join(work, 'nothing')],
      1,
      /dataset_unavailable/,
      point,
    ],
    [
      'query: a damaged catalog',
      () => ['query', 'nearest-station', '-', '--data', damaged],
      1,
      /dataset_unavailable/,
      point,
    ],
    [
      'layers: a damaged catalog is the data’s fault, not a build error',
      () => ['layers', '--data', damaged],
      1,
      /^(?!Build error)/,
    ],
    ['layers: an unknown option', () => ['layers', '--nope'], 2, /nope/],
    [
      'layers remove: no such layer',
      () => ['layers', 'remove', 'nothing/here', '--data', join(work, 'copy')],
      2,
      /has no layer/,
    ],
    [
      'build: a damaged catalog at --out',
      () => [
        'build',
        '--out',
        damaged,
        '--layer',
        'elev',
        '--unit',
        'm',
        '--time-scale',
        'none',
        '--extent',
        'za',
        ETOPO,
      ],
      1,
      /Build error: catalog\.json in .* is damaged/,
    ],
    [
      'build: an input that does not exist',
      () => [
        'build',
        '--out',
        join(work, 'b'),
        '--layer',
        'elev',
        '--unit',
        'm',
        '--time-scale',
        'none',
        join(work, 'x.tif'),
      ],
      2,
      /does not exist/,
    ],
    [
      'build: an option it cannot take',
      () => ['build', '--out', join(work, 'b'), '--layer', 'x', '--scale', 'big', join(work, 'x.tif')],
      2,
      /--scale must be a number/,
    ],
    [
      'stations remove: an unknown id',
      () => ['stations', 'remove', 'NO-SUCH-ID', '--data', join(work, 'copy')],
      2,
      /NO-SUCH-ID/,
    ],
    [
      'index: no archive there (the caller named the wrong folder)',
      () => ['index', join(work, 'nothing')],
      2,
      /stations\.parquet is missing/,
    ],
    ['serve: a bad port', () => ['serve', '--port', 'x', '--data', demo], 2, /--port/],
    ['demo: an unknown option', () => ['demo', '--nope'], 2, /nope/],
  ];
  beforeAll(async () => {
    await cp(demo, join(work, 'copy'), { recursive: true });
  });
  for (const [what, args, status, stderr, input] of cases) {
    it(`${what}: exit ${status}`, async () => {
      const r = await cli(args(), input);
      expect(r.code, `${r.stderr}\n${r.stdout}`).toBe(status);
      expect(`${r.stderr}${r.stdout}`).toMatch(stderr);
    });
  }
});
