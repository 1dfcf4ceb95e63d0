/**
 * The one panel contract. A panel is mounted with a context (its root
 * element, the store, the engine client, the app's actions), is updated
 * with the state after every change, and is disposed. Panels never call
 * each other: they read the store and ask for actions, so adding a panel
 * is one factory and one line in main.ts.
 */
import type { EngineClient } from '../browser/engine-client.ts';
import type { MapView } from './map-view.ts';
import type { SavedAnswer } from './saved-store.ts';
import type { AppState, AppStore } from './store.ts';

/** What panels may ask of the app. */
export interface AppActions {
  /** Runs the query the state describes (or says in the status why not). */
  run(): Promise<void>;
  /** Cancels the query in flight. */
  cancel(): void;
  /** Shows a saved answer again from the device, with its form and geometries. */
  openSaved(item: SavedAnswer, status?: string): void;
  /** Replaces what is drawn on the map (a pasted shape, a restored link). */
  loadGeometries(geometries: AppState['geometries']): string[];
  /** Saves a file for the user. */
  download(name: string, type: string, text: string): void;
}

/** What a panel is given when it mounts. */
export interface PanelContext {
  /** The element the panel draws in (it looks up its own parts inside it). */
  root: HTMLElement;
  store: AppStore;
  /** The engine Worker's client: every dataset read and query goes through it. */
  engine: EngineClient;
  actions: AppActions;
  /** The map, once it has loaded. */
  map(): MapView | undefined;
  /** Makes what `read` returns readable as window.cqUi[name] (the console handle), for tests and the curious. */
  expose(name: string, read: () => unknown): void;
}

/** A mounted panel. */
export interface Panel {
  /** Shows `state`; `previous` tells what changed. */
  update(state: AppState, previous: AppState): void;
  /** Removes the panel's listeners (and elements it created). */
  dispose(): void;
  /** Settles once the panel can be used (a list read from the device); absent when at once. */
  ready?: Promise<void>;
}

/** Creates a panel in a context. */
export type PanelFactory = (ctx: PanelContext) => Panel;

/** The panels mounted by one {@link mountPanels}, by name, in mounting order. */
export interface MountedPanels {
  readonly names: readonly string[];
  /** Every panel's `ready`. */
  ready: Promise<void>;
  dispose(): void;
}

/**
 * Mounts each panel on its root with the shared context, updates it once with
 * the current state and after every change, and returns them for disposal.
 */
export function mountPanels(
  base: Omit<PanelContext, 'root'>,
  specs: ReadonlyArray<{ name: string; root: HTMLElement; factory: PanelFactory }>,
): MountedPanels {
  const mounted: Array<{ name: string; panel: Panel; stop: () => void }> = [];
  for (const { name, root, factory } of specs) {
    const panel = factory({ ...base, root });
    const state = base.store.get();
    panel.update(state, state);
    mounted.push({ name, panel, stop: base.store.subscribe((s, p) => panel.update(s, p)) });
  }
  return {
    names: mounted.map((m) => m.name),
    ready: Promise.all(mounted.map((m) => m.panel.ready)).then(() => undefined),
    dispose() {
      for (const m of mounted.splice(0).reverse()) {
        m.stop();
        m.panel.dispose();
      }
    },
  };
}

/** `root`'s descendant with id `id` (panels find their parts inside their own root). */
export function part<T extends HTMLElement = HTMLElement>(root: HTMLElement, id: string): T {
  const found = root.querySelector<T>(`#${CSS.escape(id)}`);
  if (!found) throw new Error(`The page has no #${id} inside #${root.id}: index.html and the panel disagree.`);
  return found;
}
