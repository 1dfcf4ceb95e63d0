// When the engine Worker reads the station index on its own (worker-dataset.ts warmWhenIdle): only
// after WARM_IDLE_MS with no request coming, going or in flight, and once. On a faked clock.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ClimateEngine } from '../../src/engine/engine.ts';
import { WARM_IDLE_MS, warmWhenIdle } from '../../src/worker/worker-dataset.ts';

/** An engine that only counts its warm() calls (the scheduling is what is under test). */
function counting(): { engine: ClimateEngine; calls: () => number } {
  let n = 0;
  const engine = { warm: () => ((n += 1), Promise.resolve()) } as unknown as ClimateEngine;
  return { engine, calls: () => n };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('warmWhenIdle', () => {
  it('warms once, after the idle time', () => {
    const { engine, calls } = counting();
    warmWhenIdle(engine, () => false);
    vi.advanceTimersByTime(WARM_IDLE_MS - 1);
    expect(calls()).toBe(0);
    vi.advanceTimersByTime(100);
    expect(calls()).toBe(1);
    vi.advanceTimersByTime(10 * WARM_IDLE_MS);
    expect(calls()).toBe(1);
  });

  it('waits while a request is answered, and for the idle time after it', () => {
    const { engine, calls } = counting();
    let busy = true;
    const touched = warmWhenIdle(engine, () => busy);
    touched();
    vi.advanceTimersByTime(5 * WARM_IDLE_MS);
    expect(calls()).toBe(0);
    busy = false;
    touched();
    vi.advanceTimersByTime(WARM_IDLE_MS / 2);
    expect(calls()).toBe(0);
    // Another request comes and goes: the idle time starts again.
    touched();
    vi.advanceTimersByTime(WARM_IDLE_MS - 10);
    expect(calls()).toBe(0);
    vi.advanceTimersByTime(100);
    expect(calls()).toBe(1);
  });
});
