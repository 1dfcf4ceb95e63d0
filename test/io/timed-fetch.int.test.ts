// timedFetch's limits against a real local HTTP server: headers that never come and a body that
// stops end in upstream_timeout near their limit; a body that keeps coming, however slowly, is not
// cut, since its idle limit moves on with each chunk; many reads at once each keep their own limit.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClimateQueryError } from '../../src/contract/errors.ts';
import { timedFetch } from '../../src/io/timed-fetch.ts';

let server: Server;
let base: string;
const open = new Set<import('node:http').ServerResponse>();

beforeAll(async () => {
  server = createServer((req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    const path = req.url ?? '/';
    if (path === '/stall-headers') return; // never answers
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
    if (path === '/stall-body') {
      res.write(Buffer.alloc(1000, 1)); // then nothing
      return;
    }
    if (path === '/drip') {
      // 8 chunks, 60 ms apart: 480 ms in all, each gap well inside a 150 ms idle limit.
      let n = 0;
      const t = setInterval(() => {
        res.write(Buffer.alloc(100, n));
        if (++n === 8) {
          clearInterval(t);
          res.end();
        }
      }, 60);
      return;
    }
    res.end(Buffer.alloc(5000, 7));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of open) res.destroy();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const limits = { firstByteMs: 150, idleMs: 150 };

async function read(path: string): Promise<{ ms: number; bytes?: number; error?: ClimateQueryError }> {
  const t0 = performance.now();
  try {
    const answer = await timedFetch(fetch, `${base}${path}`, {}, limits);
    const bytes = await answer.body();
    return { ms: performance.now() - t0, bytes: bytes.length };
  } catch (err) {
    return { ms: performance.now() - t0, error: err as ClimateQueryError };
  }
}

describe('timedFetch limits', () => {
  it('headers that never come: upstream_timeout after the first-byte limit', async () => {
    const r = await read('/stall-headers');
    expect(r.error?.code).toBe('upstream_timeout');
    expect(r.error?.message).toContain('response within 150 ms');
    expect(r.ms).toBeGreaterThanOrEqual(145);
    expect(r.ms).toBeLessThan(2_000);
  });

  it('a body that stops: upstream_timeout after the idle limit', async () => {
    const r = await read('/stall-body');
    expect(r.error?.code).toBe('upstream_timeout');
    expect(r.error?.message).toContain('data within 150 ms');
    expect(r.ms).toBeLessThan(2_000);
  });

  it('a slow body that keeps coming is read whole, longer than the idle limit', async () => {
    const r = await read('/drip');
    expect(r.error).toBeUndefined();
    expect(r.bytes).toBe(800);
    expect(r.ms).toBeGreaterThan(150);
  });

  it('reads at once keep their own limits: the stalled ones end, the others are read', async () => {
    const all = await Promise.all(['/ok', '/stall-body', '/drip', '/stall-headers', '/ok'].map(read));
    expect(all.map((r) => r.bytes ?? r.error?.code)).toEqual([5000, 'upstream_timeout', 800, 'upstream_timeout', 5000]);
  });
});

describe('timedFetch under one shared signal', () => {
  it('twenty reads under an engine-long signal: no leak warning, and one abort stops every one still open', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      const lifetime = new AbortController();
      const done = await Promise.all(
        Array.from({ length: 20 }, async () => {
          const r = await timedFetch(fetch, `${base}/drip`, {}, limits, lifetime.signal);
          return (await r.body()).length;
        }),
      );
      expect(done).toEqual(Array(20).fill(800));
      const stalled = Array.from({ length: 15 }, () =>
        timedFetch(fetch, `${base}/stall-headers`, {}, { firstByteMs: 10_000, idleMs: 10_000 }, lifetime.signal).then(
          () => 'answered',
          (e: ClimateQueryError) => e.code,
        ),
      );
      setTimeout(() => lifetime.abort(), 50);
      expect(await Promise.all(stalled)).toEqual(Array(15).fill('aborted'));
      // Warnings are emitted on the next tick.
      await new Promise((r) => setTimeout(r, 20));
      expect(warnings.filter((w) => /MaxListeners/.test(w))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
