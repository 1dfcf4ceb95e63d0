/**
 * The app's one store: everything the panels show is derived from this
 * state, and every change goes through {@link AppStore.set}, after which
 * each panel's `update` sees the new and the previous state (in the spirit
 * of Mosaic's coordinator: clients never talk to each other, only to it).
 */
import type { Catalog } from '../dataset/catalog.ts';
import type { IndexedStation } from '../stations/station-index.ts';
import type { Endpoint } from '../contract/types.ts';
import type { DrawnGeometry, FormState } from './query-request.ts';
import type { ResultTable } from './result-table.ts';
import type { ErrorLike } from './words.ts';
import type { SavedAnswer } from './saved-store.ts';

/** The dataset the app shows, as the engine Worker read it. */
export interface AppDataset {
  /** Its root URL (`?data=`, or the demo). */
  url: string;
  catalog: Catalog;
  /** The station index's stations (empty when the dataset has none). */
  stations: IndexedStation[];
}

/** A request the app sent (or a saved answer's). */
export interface AppRequest {
  endpoint: Endpoint;
  path: string;
  body: Record<string, unknown>;
}

/** The answer on screen. */
export interface ShownAnswer {
  request: AppRequest;
  answer: unknown;
  table: ResultTable;
  /** True when no series holds a value (station counts aside). */
  empty: boolean;
  /** Where it came from: a query just run, or the device's saved answers (with when it was saved). */
  origin: 'run' | 'saved';
  savedAt?: string;
}

/** Everything the panels show. */
export interface AppState {
  /** Null until the catalog and station list have arrived. */
  dataset: AppDataset | null;
  form: FormState;
  /** What is drawn on the map, in drawing order. */
  geometries: DrawnGeometry[];
  shown: ShownAnswer | null;
  /** A query is in flight. */
  running: boolean;
  /** The line beside Run. */
  status: string;
  /** The last error of a query, shown next to the control its field names. */
  error: ErrorLike | null;
  /** Set when a query failed because the dataset could not be reached; the request that failed. */
  unreachable: AppRequest | null;
  /** The answers saved on this device for this dataset, newest first (the map outlines their shapes). */
  saved: readonly SavedAnswer[];
}

/** The store: read, change, watch. */
export interface AppStore {
  get(): AppState;
  /** Merges `patch` into the state and tells every listener (synchronously, in subscription order; a set from a listener is told after). */
  set(patch: Partial<AppState>): void;
  /** Calls `listener` after each change; returns the unsubscribe function. */
  subscribe(listener: (state: AppState, previous: AppState) => void): () => void;
}

/** Creates a store holding `initial`. */
export function createStore(initial: AppState): AppStore {
  let state = initial;
  const listeners = new Set<(s: AppState, p: AppState) => void>();
  // A set made while listeners are being told waits for them all: every listener sees the states in order.
  const queue: Array<Partial<AppState>> = [];
  let telling = false;
  return {
    get: () => state,
    set(patch) {
      queue.push(patch);
      if (telling) return;
      telling = true;
      try {
        for (let n = 0; queue.length; n++) {
          if (n > 50) throw new Error('The app store was set 50 times in one chain: a panel update loops.');
          const previous = state;
          state = { ...state, ...queue.shift() };
          for (const l of [...listeners]) l(state, previous);
        }
      } finally {
        queue.length = 0;
        telling = false;
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
