/**
 * Waiting on shared work without tying it to one caller's AbortSignal:
 * opened files and cached blocks serve every query, so one query giving up
 * must not fail the others that wait on the same promise. The caller stops
 * waiting at once; the work itself completes and stays useful.
 */
import { ClimateQueryError } from '../contract/errors.ts';

/**
 * The waits on each signal, behind one 'abort' listener per signal: a
 * query's signal has a wait per station file in flight (a polygon's 62), and
 * Node warns of a possible leak past 10 listeners on one signal
 * (MaxListenersExceededWarning), which a server's log should not show for
 * work that is bounded and cleaned up.
 */
const waits = new WeakMap<AbortSignal, { fns: Set<() => void>; listener: () => void }>();

/** Calls `fn` once when `signal` aborts (one listener per signal however many wait on it); returns the undo. */
export function onAbort(signal: AbortSignal, fn: () => void): () => void {
  let entry = waits.get(signal);
  if (!entry) {
    const fns = new Set<() => void>();
    const listener = () => {
      waits.delete(signal);
      for (const f of fns) f();
    };
    entry = { fns, listener };
    waits.set(signal, entry);
    signal.addEventListener('abort', listener, { once: true });
  }
  const mine = entry;
  mine.fns.add(fn);
  return () => {
    mine.fns.delete(fn);
    // The last wait gone: the signal keeps no listener of ours (a long-lived signal would pile them up).
    if (mine.fns.size === 0 && waits.get(signal) === mine) {
      waits.delete(signal);
      signal.removeEventListener('abort', mine.listener);
    }
  };
}

/** Resolves like `work`, or rejects with `aborted` as soon as `signal` fires. */
export function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(new ClimateQueryError('aborted', 'The request was aborted.', { cause: signal.reason }));
    if (signal.aborted) return abort();
    const stop = onAbort(signal, abort);
    work.then(
      (v) => {
        stop();
        resolve(v);
      },
      (e: unknown) => {
        stop();
        reject(e);
      },
    );
  });
}
