// The station reader sizes its merge gap from the link its reads measured (io/link-meter.ts,
// read-plan.ts mergeGapFor): over the bench server's real links, the same cold query on the demo
// reads each daily file whole in one request at 40 ms with no bandwidth limit (a request costs
// more than the bytes it saves), and only the asked chunks at 150 ms and 4 Mbit/s (bytes cost more
// than requests). Answers are the same on both links and equal a local read's. Each engine's
// location shares a meter that has already timed five reads of its link, as a page that has been
// talking to the host has: one timed body on a loaded test machine is not a measurement to assert
// on (test/io/link-meter.int.test.ts checks the meter's readings of these links on its own).
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { profileOf } from '../../bench/link.ts';
import { SCENARIOS } from '../../bench/scenarios.ts';
import { startBenchServer } from '../../bench/server.ts';
import { urlLocation } from '../../src/dataset/location.ts';
import { createClimateEngine } from '../../src/engine/engine.ts';
import { LinkMeter, type Transfer } from '../../src/io/link-meter.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';

const demo = inject('demoDataset');
const scenario = SCENARIOS.find((s) => s.id === 'nearest-daily')!;
const request = { method: 'POST', path: '/api/nearest-station/', body: JSON.stringify(scenario.body) };

/** Five reads of 60 KB as each link delivers them: 40 ms and loopback speed; 150 ms and 500 B/ms. */
const SEEN: Record<string, Transfer> = {
  '40': { bytes: 60_000, waitMs: 40, bodyMs: 0.5 },
  '150-4mbit': { bytes: 60_000, waitMs: 150, bodyMs: 112 },
};

async function run(profileId: string) {
  const server = await startBenchServer({ mounts: { '/data/': demo }, profile: profileOf(profileId) });
  const meter = new LinkMeter();
  for (let i = 0; i < 5; i++) meter.record(SEEN[profileId]!);
  const engine = createClimateEngine({ dataset: urlLocation(`${server.nodeUrl}data/`, { meter }) });
  try {
    const answer = await engine.handle(request);
    const files = new Map<string, { requests: number; bytes: number }>();
    for (const e of server.counts().log) {
      if (!e.path.startsWith('/data/stations/daily/')) continue;
      const f = files.get(e.path) ?? { requests: 0, bytes: 0 };
      f.requests++;
      f.bytes += e.bytes;
      files.set(e.path, f);
    }
    const sizes = new Map(
      await Promise.all(
        [...files.keys()].map(async (p) => [p, (await stat(join(demo, p.slice('/data/'.length)))).size] as const),
      ),
    );
    return { answer, files, sizes };
  } finally {
    await engine.close();
    await server.close();
  }
}

describe('merge gap from the measured link', () => {
  it('reads whole daily files at 40 ms unlimited and only chunks at 150 ms, 4 Mbit/s; same answers', async () => {
    const local = createNodeEngine(demo);
    const expected = await local.handle(request);
    await local.close();
    expect(expected.status).toBe(200);

    const fast = await run('40');
    expect(fast.answer.body).toEqual(expected.body);
    expect(fast.files.size).toBeGreaterThanOrEqual(5);
    for (const [path, f] of fast.files)
      expect({ path, ...f }).toEqual({ path, requests: 1, bytes: fast.sizes.get(path) });

    const slow = await run('150-4mbit');
    expect(slow.answer.body).toEqual(expected.body);
    const read = [...slow.files.values()].reduce((s, f) => s + f.bytes, 0);
    const whole = [...slow.files.keys()].reduce((s, p) => s + slow.sizes.get(p)!, 0);
    expect(read).toBeLessThan(0.8 * whole);
  });
});

/** Every request of one engine's queries over `profileId`'s link, with a meter that has seen that link. */
async function overLink(profileId: string, requests: ReadonlyArray<{ path: string; body: string }>) {
  const server = await startBenchServer({ mounts: { '/data/': demo }, profile: profileOf(profileId) });
  const meter = new LinkMeter();
  for (let i = 0; i < 5; i++) meter.record(SEEN[profileId]!);
  const engine = createClimateEngine({ dataset: urlLocation(`${server.nodeUrl}data/`, { meter }) });
  try {
    const out = [];
    for (const r of requests) {
      server.reset();
      const answer = await engine.handle({ method: 'POST', ...r });
      out.push({ answer, log: server.counts().log });
    }
    return out;
  } finally {
    await engine.close();
    await server.close();
  }
}

describe('files read whole instead of after their coverage lines', () => {
  // A 5 × 5 grid over the demo's stations (10 points a query at most); evaporation is measured at 47 of its 130 stations, so
  // many points' nearest station has none and the next is tried.
  const grid = Array.from(
    { length: 25 },
    (_, i) => `POINT (${18.2 + (i % 5) * 0.55} ${-34.4 + Math.floor(i / 5) * 0.45})`,
  );
  const region = 'POLYGON ((18.2 -34.5, 20.5 -34.5, 20.5 -32.5, 18.2 -32.5, 18.2 -34.5))';
  const daily = { options: { timeScale: 'daily' }, startDate: '2024-01-01', endDate: '2024-12-31' };
  const requests = [
    {
      path: '/api/nearest-station/',
      body: JSON.stringify({ wkts: grid.slice(0, 10).join(';'), dataTypes: ['evaporation_sum'], ...daily }),
    },
    {
      path: '/api/nearest-station/',
      body: JSON.stringify({
        wkts: grid.slice(10, 20).join(';'),
        dataTypes: ['evaporation_sum', 'et0', 'rain_sum'],
        ...daily,
      }),
    },
    { path: '/api/poly-aggregate/', body: JSON.stringify({ wkts: region, dataTypes: ['evaporation_sum'], ...daily }) },
    {
      path: '/api/nearest-station/',
      body: JSON.stringify({
        wkts: grid.slice(15, 25).join(';'),
        dataTypes: ['temperature_mean', 'rain_sum'],
        options: { timeScale: 'monthly' },
        startDate: '2023-03',
        endDate: '2024-02',
      }),
    },
  ];
  const coverageReads = (log: ReadonlyArray<{ path: string }>) =>
    log.filter((e) => e.path.endsWith('coverage.jsonl')).length;

  it('on a fast link: no coverage lines, one request per file, stations without data passed over as before', async () => {
    const local = createNodeEngine(demo);
    const expected = await Promise.all(requests.map((r) => local.handle({ method: 'POST', ...r })));
    await local.close();
    const fast = await overLink('40', requests);
    fast.forEach(({ answer, log }, i) => {
      expect(expected[i]!.status).toBe(200);
      expect(answer.body).toEqual(expected[i]!.body);
      // The stations' own values chose them: no coverage line was read (the first query's index aside).
      expect({ i, coverage: coverageReads(log) }).toEqual({ i, coverage: 0 });
      const perFile = new Map<string, number>();
      for (const e of log) if (e.path.includes('/station_id=')) perFile.set(e.path, (perFile.get(e.path) ?? 0) + 1);
      expect([...perFile.values()].every((n) => n === 1)).toBe(true);
    });
    // Evaporation: more station files read than stations chosen, so some candidates had none and were passed over.
    const chosen = new Set(
      Object.values(
        expected[0]!.body as Record<string, { metadata: { station_lat: number; station_lon: number } }>,
      ).map((a) => `${a.metadata.station_lat},${a.metadata.station_lon}`),
    );
    const read = new Set(fast[0]!.log.filter((e) => e.path.includes('/station_id=')).map((e) => e.path));
    expect(read.size).toBeGreaterThan(chosen.size);
  });

  it('on a slow link the coverage lines still decide, with the same answers', async () => {
    const local = createNodeEngine(demo);
    const expected = await local.handle({ method: 'POST', ...requests[0]! });
    await local.close();
    const [slow] = await overLink('150-4mbit', [requests[0]!]);
    expect(slow!.answer.body).toEqual(expected.body);
    expect(coverageReads(slow!.log)).toBeGreaterThan(0);
  });
});
