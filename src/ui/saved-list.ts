/**
 * The "Saved on this device" list under the results: each answer the app
 * obtained, with its geometries, what was asked and when. Clicking one
 * hands it back to the app to show (no network needed); Delete removes it.
 */
import './saved.css';
import { openSavedStore, SAVED_LIMIT, type SavedAnswer, type SavedStore } from './saved-store.ts';
import { geometriesLabel, requestSummary, savedTimeLabel } from './saved-summary.ts';
import { endpointFor, type DrawnGeometry } from './query-request.ts';
import type { Panel, PanelContext } from './panel.ts';
import { layersOf } from './form-rules.ts';
import { subTypeName } from './words.ts';

/** What the app hands over to keep an answer. */
export type NewAnswer = Pick<SavedAnswer, 'form' | 'geometries' | 'request' | 'answer'> & {
  /** The geometries the request used (the label names them). */
  used: readonly DrawnGeometry[];
};

/** The list on screen. */
export interface SavedList {
  /** Keeps an answer and shows it first in the list. */
  save(item: NewAnswer): Promise<SavedAnswer | null>;
  /** The items shown, newest first. */
  items(): SavedAnswer[];
  /** The saved answer to exactly this request (path and body) in this dataset, if any. */
  find(path: string, body: Record<string, unknown>): SavedAnswer | undefined;
  /** Says the dataset could not be reached (a query failed for it), pointing to the saved answers. */
  unreachable(): void;
}

/**
 * Adds the list to `parent` and fills it from the device's store. Resolves
 * with a list that keeps nothing (and says why) when IndexedDB is unavailable.
 */
export async function createSavedList(
  parent: HTMLElement,
  dataset: string,
  onOpen: (item: SavedAnswer) => void,
  /** Names a layer as the dataset's catalog does, for the list's one-line summaries. */
  describeLayer?: (dataType: string, subDataType: string) => string,
  /** Told the answers shown after every change (saved, deleted, read at start). */
  onChange?: (shown: readonly SavedAnswer[]) => void,
): Promise<SavedList> {
  const section = document.createElement('section');
  section.id = 'saved';
  section.setAttribute('aria-labelledby', 'saved-title');
  const title = document.createElement('h2');
  title.id = 'saved-title';
  title.textContent = 'Saved on this device';
  const hint = document.createElement('p');
  hint.className = 'hint';
  hint.textContent = `Every answer is kept here (the latest ${SAVED_LIMIT} of this dataset) and opens without a connection. Click one to show it again.`;
  const list = document.createElement('ol');
  list.id = 'saved-list';
  // With no connection, say where the answers are: new queries need the dataset's files.
  // navigator.onLine is only a hint (true behind a dead link), so a failed read of the dataset says it too.
  const offline = document.createElement('p');
  offline.id = 'offline-notice';
  offline.setAttribute('role', 'status');
  const NO_CONNECTION = 'No connection: new queries need the dataset, but the answers saved below open without one.';
  const showConnection = () => {
    offline.textContent = navigator.onLine ? '' : NO_CONNECTION;
  };
  addEventListener('online', showConnection);
  addEventListener('offline', showConnection);
  showConnection();
  section.append(title, offline, hint, list);
  parent.append(section);

  let store: SavedStore | null = null;
  let shown: SavedAnswer[] = [];
  try {
    store = await openSavedStore();
  } catch (e) {
    hint.textContent = `Answers cannot be kept on this device: ${(e as Error).message || 'the browser refuses storage (private window?)'}.`;
  }

  const render = () => {
    list.replaceChildren(
      ...shown.map((item) => {
        const li = document.createElement('li');
        const open = document.createElement('button');
        open.type = 'button';
        open.className = 'saved-open';
        const label = document.createElement('strong');
        label.textContent = item.label;
        const summary = document.createElement('span');
        summary.className = 'saved-summary';
        summary.textContent = item.summary;
        const time = document.createElement('time');
        time.dateTime = item.savedAt;
        time.textContent = savedTimeLabel(item.savedAt);
        open.append(label, summary, time);
        open.addEventListener('click', () => onOpen(item));
        const del = document.createElement('button');
        del.type = 'button';
        del.className = 'saved-delete';
        del.textContent = 'Delete';
        del.setAttribute('aria-label', `Delete saved answer: ${item.label}, ${item.summary}`);
        del.addEventListener('click', () => {
          if (!store || item.id === undefined) return;
          void store.remove(item.id).then(refresh);
        });
        li.append(open, del);
        return li;
      }),
    );
    if (!shown.length && store) {
      const li = document.createElement('li');
      li.className = 'hint';
      li.textContent = 'Nothing saved yet: run a query.';
      list.append(li);
    }
  };
  const refresh = async () => {
    shown = store ? await store.list(dataset) : [];
    render();
    onChange?.(shown);
  };
  await refresh();

  return {
    async save(item) {
      if (!store) return null;
      const keep = store.add({
        savedAt: new Date().toISOString(),
        dataset,
        label: geometriesLabel(item.used),
        summary: requestSummary(item.request.endpoint, item.request.body, describeLayer),
        form: item.form,
        geometries: item.geometries,
        request: item.request,
        answer: item.answer,
      });
      // A full disk or a refused quota loses this answer only; say so where the answers are listed.
      const saved = await keep.catch((e: unknown) => {
        hint.textContent = `This answer could not be kept on the device: ${(e as Error)?.message ?? String(e)}.`;
        return null;
      });
      if (saved && saved.dropped > 0) {
        hint.textContent = `Kept. The ${saved.dropped === 1 ? 'oldest answer' : `${saved.dropped} oldest answers`} of this dataset made room for it (the latest ${SAVED_LIMIT} are kept).`;
      }
      await refresh();
      return saved;
    },
    items: () => shown,
    find(path, body) {
      const key = JSON.stringify(body);
      return shown.find((i) => i.request.path === path && JSON.stringify(i.request.body) === key);
    },
    unreachable() {
      offline.textContent = `The dataset could not be reached. ${shown.length ? 'The answers saved below open without a connection.' : 'Answers obtained online are kept here for such times.'}`;
    },
  };
}

/**
 * The saved answers as a panel of `#results`: every answer a query brings is
 * kept, and when the dataset cannot be reached the same question's saved
 * answer is shown instead, saying so.
 */
export function savedPanel(ctx: PanelContext): Panel {
  const { store, actions } = ctx;
  let list: SavedList | undefined;
  const describe = (dataType: string, sub: string) => {
    const layer = layersOf(store.get().dataset).find((l) => l.dataType === dataType && l.subDataType === sub);
    return layer
      ? `${layer.description}${sub !== '-' ? `, ${subTypeName(dataType, sub)}` : ''}`
      : `${dataType}, ${subTypeName(dataType, sub)}`;
  };
  const ready = createSavedList(
    ctx.root,
    store.get().dataset?.url ?? '',
    (item) => actions.openSaved(item),
    describe,
    (saved) => store.set({ saved }),
  ).then((l) => {
    list = l;
  });
  ctx.expose('saved', () => list);
  return {
    ready,
    update(state, previous) {
      const shown = state.shown;
      if (shown && shown !== previous.shown && shown.origin === 'run' && !shown.empty) {
        void list?.save({
          form: { ...state.form },
          geometries: state.geometries,
          used: endpointFor(state.form, state.geometries)?.used ?? [],
          request: shown.request,
          answer: shown.answer,
        });
      }
      const failed = state.unreachable;
      if (failed && failed !== previous.unreachable) {
        list?.unreachable();
        // The same question answered before: show that answer, and say it is the saved one.
        const kept = list?.find(failed.path, failed.body);
        if (kept)
          actions.openSaved(
            kept,
            `No connection to the dataset: showing the answer saved on ${savedTimeLabel(kept.savedAt)}.`,
          );
      }
    },
    dispose() {
      ctx.root.querySelector('#saved')?.remove();
    },
  };
}
