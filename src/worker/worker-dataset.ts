/**
 * The engine Worker's side of the files its page reads ahead
 * (browser/engine-client.ts `readAhead`): the page fetches catalog.json and
 * the station index while the Worker's own script still downloads, and sends
 * them in `catalog` and `file` messages after `init`.
 */
import { readAheadLocation } from '../dataset/read-ahead.ts';
import type { ClimateEngine } from '../engine/engine.ts';
import type { DatasetLocation } from '../dataset/location.ts';
import { READ_AHEAD_WAIT_MS, type ToWorker } from './protocol.ts';

/** What an engine Worker opens for an `init`, and where the page's read-ahead messages go. */
export interface WorkerDataset {
  /** The dataset URL, or with `readAhead`, a location whose first reads take what the page read. */
  dataset: string | DatasetLocation;
  /** Takes a `catalog` or `file` message. */
  take(msg: Extract<ToWorker, { type: 'catalog' | 'file' }>): void;
}

/** The dataset of `msg`; without `readAhead`, the URL as given. */
export function workerDataset(msg: Extract<ToWorker, { type: 'init' }>): WorkerDataset {
  if (!msg.readAhead) return { dataset: msg.dataset, take: () => undefined };
  const ahead = readAheadLocation(msg.dataset, READ_AHEAD_WAIT_MS);
  return {
    dataset: ahead.location,
    take: (m) => (m.type === 'catalog' ? ahead.catalog(m.text, m.files) : ahead.file(m.path, m.bytes, m.transfers)),
  };
}

/**
 * How long an engine Worker must have had nothing to do before it reads the station index on its
 * own (`warmWhenIdle`): a page's first query, sent as it opens, comes well within this.
 */
export const WARM_IDLE_MS = 400;

/**
 * Reads the station index (`engine.warm()`) once the Worker has been idle for {@link WARM_IDLE_MS}:
 * people draw their first field seconds after the page has loaded, and the index's round trip
 * and parse are then done. Never while a query is answered (`busy`), nor within that time of
 * one's start or end, so a first raster query reads nothing of stations before its answer.
 * Returns a function to call as each request comes and as it is answered.
 */
export function warmWhenIdle(engine: ClimateEngine, busy: () => boolean): () => void {
  let last = performance.now();
  let done = false;
  const check = () => {
    if (done) return;
    const idle = performance.now() - last;
    if (busy() || idle < WARM_IDLE_MS) {
      setTimeout(check, Math.max(50, WARM_IDLE_MS - idle));
      return;
    }
    done = true;
    void engine.warm();
  };
  setTimeout(check, WARM_IDLE_MS);
  return () => void (last = performance.now());
}
