/** The gate that admits previews by the bytes they hold: never more than its bound at once, in order, and an abort leaves the queue. */
import { describe, expect, it } from 'vitest';
import { ByteGate } from '../../src/io/byte-gate.ts';

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('ByteGate', () => {
  it('runs jobs while their bytes fit, the rest in the order they came', async () => {
    const gate = new ByteGate(100);
    let peak = 0;
    const order: number[] = [];
    const job = (i: number, bytes: number) =>
      gate.run(bytes, async () => {
        peak = Math.max(peak, gate.running);
        await tick();
        order.push(i);
        return i;
      });
    const got = await Promise.all([job(0, 60), job(1, 30), job(2, 50), job(3, 10), job(4, 100)]);
    expect(got).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBeLessThanOrEqual(100);
    // 3 (10 bytes) would fit beside 0 and 1, but waits behind 2: first come, first served.
    expect(order.indexOf(3)).toBeGreaterThan(order.indexOf(1));
    expect(gate.running).toBe(0);
  });

  it('runs a job larger than the bound alone', async () => {
    const gate = new ByteGate(10);
    let alone = true;
    await Promise.all([
      gate.run(500, async () => {
        alone &&= gate.running === 500;
        await tick();
      }),
      gate.run(5, async () => {
        alone &&= gate.running === 5;
      }),
    ]);
    expect(alone).toBe(true);
  });

  it('a waiting job whose signal aborts leaves the queue with its reason, and the next one goes on', async () => {
    const gate = new ByteGate(10);
    let release!: () => void;
    const first = gate.run(10, () => new Promise<void>((r) => (release = r)));
    const controller = new AbortController();
    const waiting = gate.run(10, async () => 'ran', controller.signal);
    const after = gate.run(10, async () => 'after');
    controller.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    release();
    await first;
    await expect(after).resolves.toBe('after');
    expect(gate.running).toBe(0);
  });
});
