// The link meter: its estimate from hand-made transfers (the shortest wait, the median rate of the
// bodies large enough to time), and from real answers of createHttpSource through the bench
// server's links: 40 ms with no limit, and 150 ms at 4 Mbit/s behind the bench's throttling relay.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { profileOf } from '../../bench/link.ts';
import { startBenchServer } from '../../bench/server.ts';
import { createHttpSource } from '../../src/io/http-source.ts';
import { HEAD_START_BYTES, LinkMeter, TIMED_BODY_BYTES } from '../../src/io/link-meter.ts';

describe('LinkMeter', () => {
  it('takes the shortest wait as the round trip and the median rate of timed bodies', () => {
    const m = new LinkMeter();
    expect(m.estimate()).toEqual({ latencyMs: null, bytesPerMs: null });
    m.record({ bytes: 2_000, waitMs: 45, bodyMs: 0 });
    // A small body tells the round trip, not the rate.
    expect(m.estimate()).toEqual({ latencyMs: 45, bytesPerMs: null });
    const timed = (ms: number) => ({ bytes: HEAD_START_BYTES + 20_000, waitMs: 45, bodyMs: ms });
    m.record(timed(20)); // 1000 B/ms
    m.record(timed(10)); // 2000 B/ms
    m.record(timed(0)); // arrived with its headers: 20,000 / 0.5 ms, an outlier the median ignores
    expect(m.estimate()).toEqual({ latencyMs: 45, bytesPerMs: 2000 });
    // Even counts take the lower middle: the estimate errs towards the slow link.
    m.record(timed(40));
    expect(m.estimate().bytesPerMs).toBe(1000);
    // Nonsense is not recorded.
    m.record({ bytes: Number.NaN, waitMs: 1, bodyMs: 1 });
    m.record({ bytes: TIMED_BODY_BYTES, waitMs: -1, bodyMs: 1 });
    expect(m.estimate().latencyMs).toBe(45);
  });

  it('takes the time any body needs to be handed over off the timed bodies', () => {
    const m = new LinkMeter();
    // A browser hands every body to its Worker a few ms after the headers, small or large.
    m.record({ bytes: 1_500, waitMs: 41, bodyMs: 6 });
    m.record({ bytes: HEAD_START_BYTES + 13_000, waitMs: 41, bodyMs: 7 });
    expect(m.estimate()).toEqual({ latencyMs: 41, bytesPerMs: 13_000 });
  });

  it('takes no hand-over time off when only large bodies were seen', () => {
    // A first query's catalog and index on a 4 Mbit/s link (500 B/ms): neither body is a hand-over
    // alone, so neither is taken off the other (that read 26 MB/s on the bench's rural link).
    const m = new LinkMeter();
    m.record({ bytes: HEAD_START_BYTES + 25_000, waitMs: 150, bodyMs: 50 });
    m.record({ bytes: HEAD_START_BYTES + 13_000, waitMs: 150, bodyMs: 26 });
    expect(m.estimate().bytesPerMs).toBe(500);
  });

  it('times bodies that arrived together as one: they shared the link', () => {
    const m = new LinkMeter();
    // Three 64 KiB bodies over the same 100 ms: each alone shows a third of the link.
    for (const at of [0, 2, 4]) m.record({ bytes: 65_536 + 4_096, waitMs: 40, bodyMs: 100 - at, sentAt: at - 40 });
    m.record({ bytes: 100, waitMs: 40, bodyMs: 0, sentAt: 1_000 });
    expect(m.estimate().bytesPerMs).toBeCloseTo((3 * 65_536) / 100, 0);
    // Bodies one after another are timed alone, as before.
    const apart = new LinkMeter();
    for (const at of [0, 200, 400]) apart.record({ bytes: 65_536 + 4_096, waitMs: 40, bodyMs: 100, sentAt: at });
    apart.record({ bytes: 100, waitMs: 40, bodyMs: 0, sentAt: 1_000 });
    expect(apart.estimate().bytesPerMs).toBeCloseTo(65_536 / 100, 0);
  });

  it('follows the recent transfers only', () => {
    const m = new LinkMeter();
    m.record({ bytes: 100, waitMs: 5, bodyMs: 0 });
    for (let i = 0; i < 48; i++) m.record({ bytes: 100, waitMs: 150 + i, bodyMs: 0 });
    expect(m.estimate().latencyMs).toBe(150);
  });
});

describe('LinkMeter fed by createHttpSource over real links', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cq-meter-'));
    await writeFile(join(dir, 'a.bin'), Buffer.alloc(300_000, 3));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  async function measure(profileId: string, together = false) {
    const server = await startBenchServer({ mounts: { '/d/': dir }, profile: profileOf(profileId) });
    try {
      const meter = new LinkMeter();
      const source = createHttpSource(`${server.nodeUrl}d/a.bin`, { expected: { bytes: 300_000 }, meter });
      expect((await source.read(0, 1_000)).length).toBe(1_000);
      const reads: Array<[number, number]> = together
        ? [
            [10_000, 60_000],
            [80_000, 60_000],
            [150_000, 60_000],
            [220_000, 60_000],
          ]
        : [
            [10_000, 120_000],
            [150_000, 120_000],
          ];
      if (together) {
        const got = await Promise.all(reads.map(([offset, length]) => source.read(offset, length)));
        expect(got.map((b) => b.length)).toEqual(reads.map(([, length]) => length));
      } else {
        for (const [offset, length] of reads) expect((await source.read(offset, length)).length).toBe(length);
      }
      return meter.estimate();
    } finally {
      await server.close();
    }
  }

  it('measures 40 ms and a fast body on the unlimited link', async () => {
    const e = await measure('40');
    expect(e.latencyMs).toBeGreaterThanOrEqual(39);
    // Loopback: far above 12 Mbit/s (1,500 B/ms, three times the rural link) even on a loaded machine.
    expect(e.bytesPerMs).toBeGreaterThan(1_500);
  });

  it("takes a transfer's times from the runtime's Resource Timing entry of its fetch", async () => {
    const server = await startBenchServer({ mounts: { '/d/': dir }, profile: profileOf('40') });
    try {
      const url = `${server.nodeUrl}d/a.bin`;
      const sentAt = performance.now();
      const body = await fetch(url, { headers: { Range: 'bytes=0-119999' } }).then((r) => r.arrayBuffer());
      const receivedIn = performance.now() - sentAt;
      // The runtime adds the entry a task after the body ends.
      await new Promise((r) => setTimeout(r, 20));
      // Times as a Worker busy for half a second would have seen them (all wait, no body): the entry's replace them.
      const meter = new LinkMeter();
      meter.record({ bytes: body.byteLength, waitMs: receivedIn + 500, bodyMs: 0, url, sentAt });
      const e = meter.estimate();
      expect(e.latencyMs).toBeGreaterThanOrEqual(39);
      expect(e.latencyMs).toBeLessThanOrEqual(receivedIn);
      // An unmatched record (another size) keeps the reader's own times.
      const other = new LinkMeter();
      other.record({ bytes: 5, waitMs: receivedIn + 500, bodyMs: 0, url, sentAt });
      expect(other.estimate().latencyMs).toBe(receivedIn + 500);
    } finally {
      await server.close();
    }
  });

  it('measures 20 Mbit/s from bodies that shared it, and no more', async () => {
    const e = await measure('40-20mbit', true);
    // 20 Mbit/s is 2,500 B/ms for the four bodies together (each alone got about a quarter).
    expect(e.bytesPerMs!).toBeGreaterThan(2_500 * 0.6);
    expect(e.bytesPerMs!).toBeLessThanOrEqual(2_500 * 1.15);
  });

  it('measures no more than 4 Mbit/s on the rural link from bodies that shared it', async () => {
    const e = await measure('150-4mbit', true);
    expect(e.bytesPerMs!).toBeGreaterThan(500 * 0.6);
    expect(e.bytesPerMs!).toBeLessThanOrEqual(500 * 1.15);
  });

  it('measures 150 ms and no more than 4 Mbit/s on the rural link', async () => {
    const e = await measure('150-4mbit');
    expect(e.latencyMs).toBeGreaterThanOrEqual(149);
    // 4 Mbit/s is 500 B/ms; a busy machine only slows the body (the check is an upper bound).
    expect(e.bytesPerMs).not.toBeNull();
    expect(e.bytesPerMs!).toBeLessThanOrEqual(500 * 1.15);
  });
});
