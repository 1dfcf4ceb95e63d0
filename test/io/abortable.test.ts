// Waits on shared work through a caller's signal: one listener per signal,
// none left once the waits settle, and every pending wait rejected on abort.
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { abortable } from '../../src/io/abortable.ts';

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((a, b) => {
    resolve = a;
    reject = b;
  });
  return { promise, resolve, reject };
}

describe('abortable', () => {
  it('holds 60 waits on one signal with one listener, prints no leak warning, and leaves none behind', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const signal = new AbortController().signal;
      const works = Array.from({ length: 60 }, () => deferred<number>());
      const waits = works.map((w) => abortable(w.promise, signal));
      expect(getEventListeners(signal, 'abort')).toHaveLength(1);
      works.forEach((w, i) => w.resolve(i));
      expect(await Promise.all(waits)).toEqual(works.map((_, i) => i));
      expect(getEventListeners(signal, 'abort')).toHaveLength(0);
      // A second batch on the same long-lived signal adds one listener again, not one per wait.
      const again = deferred<string>();
      const wait = abortable(again.promise, signal);
      expect(getEventListeners(signal, 'abort')).toHaveLength(1);
      again.reject(new Error('read failed'));
      await expect(wait).rejects.toThrow('read failed');
      expect(getEventListeners(signal, 'abort')).toHaveLength(0);
      await new Promise((r) => setTimeout(r, 10));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('rejects every pending wait with `aborted` on abort, and the shared work still completes', async () => {
    const controller = new AbortController();
    const done = deferred<number>();
    const pending = deferred<number>();
    const settled = abortable(done.promise, controller.signal);
    const waits = Array.from({ length: 12 }, () => abortable(pending.promise, controller.signal));
    done.resolve(1);
    expect(await settled).toBe(1);
    controller.abort(new Error('user left'));
    for (const w of waits) await expect(w).rejects.toMatchObject({ code: 'aborted' });
    pending.resolve(2);
    expect(await pending.promise).toBe(2);
    // Already aborted: rejected at once, no listener added.
    await expect(abortable(Promise.resolve(3), controller.signal)).rejects.toMatchObject({ code: 'aborted' });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
