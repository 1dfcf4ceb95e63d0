/**
 * A long command is never silent for long (src/node/heartbeat.ts): after `quietMs` without a line the
 * step at work is said again with the time so far; a line said meanwhile resets the wait.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { heartbeat } from '../../src/node/heartbeat.ts';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('a heartbeat', () => {
  it('repeats the step at work after each quiet stretch, and never within one', () => {
    const lines: Array<[number, string]> = [];
    const t0 = Date.now();
    const beat = heartbeat((l) => lines.push([Date.now() - t0, l]), 'demo: ', 4500);
    beat.phase('writing inputs', true);
    vi.advanceTimersByTime(12_000);
    beat.say('demo: inputs written');
    beat.phase('building');
    vi.advanceTimersByTime(3_000);
    beat.say('demo: a step of the build');
    vi.advanceTimersByTime(6_000);
    beat.stop();
    vi.advanceTimersByTime(20_000);
    expect(lines.map(([, l]) => l)).toEqual([
      'demo: writing inputs',
      'demo: writing inputs, 5 s so far',
      'demo: writing inputs, 9 s so far',
      'demo: inputs written',
      'demo: a step of the build',
      'demo: building, 20 s so far',
    ]);
    // No gap between lines reaches 5 s while it runs.
    for (let i = 1; i < lines.length; i++) expect(lines[i]![0] - lines[i - 1]![0]).toBeLessThan(5_000);
  });
});
