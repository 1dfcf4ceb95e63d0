/**
 * The engine Worker's side of the files its page reads ahead
 * (browser/engine-client.ts `readAhead`): the page fetches catalog.json and
 * the station index while the Worker's own script still downloads, and sends
 * them in `catalog` and `file` messages after `init`.
 */
import { readAheadLocation } from '../dataset/read-ahead.ts';
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
