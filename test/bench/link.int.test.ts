// The bench's link model (bench/link.ts), tested as the measuring tool it is: the critical-path
// count on hand-made request logs, and the shared bandwidth limit on a real download through the
// bench server's relay (a lower bound only: a loaded machine may be slower, never faster).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { profileOf, roundTrips } from '../../bench/link.ts';
import { startBenchServer } from '../../bench/server.ts';

describe('roundTrips', () => {
  it('counts the busy periods of the requests: phases that wait for the one before', () => {
    // index, then three coverage lines at once, then two station files at once.
    const log = [
      { path: '/data/catalog.json', t0: 0, t1: 40 },
      { path: '/data/stations/index.parquet', t0: 41, t1: 81 },
      ...[82, 83, 84].map((t0) => ({ path: '/data/stations/coverage.jsonl', t0, t1: t0 + 40 })),
      ...[130, 131].map((t0) => ({ path: '/data/stations/daily/a.parquet', t0, t1: t0 + 40 })),
    ];
    // catalog.json is left out: the count starts after it.
    expect(roundTrips(log)).toBe(3);
    // A request sent while others were still open is not a further step.
    expect(roundTrips([...log, { path: '/x', t0: 90, t1: 110 }])).toBe(3);
    // One sent after the files were answered is.
    expect(roundTrips([...log, { path: '/x', t0: 200, t1: 240 }])).toBe(4);
    // Sends spread out within a phase (a browser's ~1 ms apart) stay one step while any is open.
    const spread = [0, 1, 2, 3, 40, 44].map((t0) => ({ path: '/f', t0, t1: t0 + 45 }));
    expect(roundTrips(spread)).toBe(1);
    expect(roundTrips([])).toBe(0);
  });
});

describe('the bench server on a limited link', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cq-link-'));
    await writeFile(join(dir, 'a.bin'), Buffer.alloc(250_000, 7));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('shares one rate among parallel downloads and delivers every byte', async () => {
    const server = await startBenchServer({ mounts: { '/d/': dir }, profile: profileOf('40-20mbit') });
    try {
      const t0 = performance.now();
      const bodies = await Promise.all(
        [0, 1, 2, 3].map(() => fetch(`${server.nodeUrl}d/a.bin`).then((r) => r.arrayBuffer())),
      );
      const ms = performance.now() - t0;
      expect(bodies.map((b) => b.byteLength)).toEqual([250_000, 250_000, 250_000, 250_000]);
      expect(server.counts()).toMatchObject({ requests: 4, bytes: 1_000_000 });
      // 1 MB at 20 Mbit/s is 400 ms on one shared line (four separate 20 Mbit/s lines would take 100 ms).
      expect(ms).toBeGreaterThanOrEqual(0.9 * 400);
    } finally {
      await server.close();
    }
  });
});
