/**
 * The user's fields and their answers, kept on this device in IndexedDB,
 * so an answer obtained online stays viewable, exportable and restorable
 * on a farm with no signal. Raw IndexedDB (one object store, a few calls):
 * a wrapper package would add more than it saves.
 *
 * What is kept: every successful answer, newest first, at most
 * {@link SAVED_LIMIT} per dataset (a page that opens the app with its own
 * `?data=` cannot push a grower's answers out); asking the same question
 * again replaces the older copy; the user deletes any item. An answer larger than
 * {@link MAX_SAVED_CHARS} (a year of hourly data for many points) is not
 * kept: it would crowd out the rest and such answers are re-run, not read
 * on a phone.
 */
import type { Endpoint } from '../contract/types.ts';
import type { DrawnGeometry, FormState } from './query-request.ts';

/** Most answers kept per dataset; the oldest of that dataset go first. */
export const SAVED_LIMIT = 50;
/** Largest answer kept, in characters of its JSON (≈ bytes). */
export const MAX_SAVED_CHARS = 5_000_000;

const DB_NAME = 'climate-query';
const STORE = 'answers';

/** One kept answer with everything needed to show it again without a network. */
export interface SavedAnswer {
  /** Assigned by the store. */
  id?: number;
  /** ISO time it was obtained. */
  savedAt: string;
  /** Dataset URL the answer came from: answers are listed per dataset. */
  dataset: string;
  /** Which geometries, as the side panel names them ("G1 point -33.93, 18.87"). */
  label: string;
  /** What was asked ("Station records, daily: rain_sum; 2024-06-01 to 2024-06-30"). */
  summary: string;
  form: FormState;
  geometries: DrawnGeometry[];
  request: { endpoint: Endpoint; path: string; body: Record<string, unknown> };
  answer: unknown;
}

/** The saved answers of this device. */
export interface SavedStore {
  /**
   * Keeps an answer (replacing the same question asked before); resolves with it, id set, and how many
   * of its dataset's oldest answers made room for it; null when too large to keep.
   */
  add(item: SavedAnswer): Promise<(SavedAnswer & { dropped: number }) | null>;
  /** The answers of one dataset, newest first. */
  list(dataset: string): Promise<SavedAnswer[]>;
  get(id: number): Promise<SavedAnswer | undefined>;
  remove(id: number): Promise<void>;
}

/** Resolves an IDBRequest. */
function done<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/** Resolves when a transaction has committed. */
function committed(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
  });
}

/** The same question: same dataset, endpoint and request body. */
const sameQuestion = (a: SavedAnswer, b: SavedAnswer) =>
  a.dataset === b.dataset &&
  a.request.path === b.request.path &&
  JSON.stringify(a.request.body) === JSON.stringify(b.request.body);

/** Opens (creating on first use) the store in this browser profile. */
export async function openSavedStore(): Promise<SavedStore> {
  const open = indexedDB.open(DB_NAME, 1);
  open.onupgradeneeded = () => open.result.createObjectStore(STORE, { keyPath: 'id', autoIncrement: true });
  const db = await done(open);
  const all = async () => (await done(db.transaction(STORE).objectStore(STORE).getAll())) as SavedAnswer[];
  return {
    async add(item) {
      if (JSON.stringify(item.answer).length > MAX_SAVED_CHARS) return null;
      const existing = await all();
      const tx = db.transaction(STORE, 'readwrite');
      const store = tx.objectStore(STORE);
      for (const old of existing) if (sameQuestion(old, item)) store.delete(old.id!);
      const { id: _drop, ...fresh } = item;
      const id = (await done(store.add(fresh))) as number;
      // The oldest of this dataset beyond its limit go; other datasets' answers are never touched.
      const survivors = existing
        .filter((o) => o.dataset === item.dataset && !sameQuestion(o, item))
        .sort((a, b) => b.savedAt.localeCompare(a.savedAt) || b.id! - a.id!);
      const dropped = survivors.slice(SAVED_LIMIT - 1);
      for (const old of dropped) store.delete(old.id!);
      await committed(tx);
      return { ...fresh, id, dropped: dropped.length };
    },
    async list(dataset) {
      return (await all())
        .filter((a) => a.dataset === dataset)
        .sort((a, b) => b.savedAt.localeCompare(a.savedAt) || b.id! - a.id!);
    },
    async get(id) {
      return (await done(db.transaction(STORE).objectStore(STORE).get(id))) as SavedAnswer | undefined;
    },
    async remove(id) {
      const tx = db.transaction(STORE, 'readwrite');
      tx.objectStore(STORE).delete(id);
      await committed(tx);
    },
  };
}
