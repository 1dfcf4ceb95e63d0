/**
 * The Worker's side of the catalog a page reads ahead (browser/engine-client.ts `catalogAhead`):
 * the page fetches catalog.json while the Worker's own script still downloads, and sends its text
 * in a `catalog` message after `init`.
 */
import { urlLocation, withCatalogText, type DatasetLocation } from '../dataset/location.ts';
import { CATALOG_AHEAD_MS, type ToWorker } from './protocol.ts';

/** What an engine Worker opens for an `init`, and where the page's `catalog` message goes. */
export interface InitDataset {
  /** The dataset URL, or with `catalogAhead`, a location whose first catalog read is the page's text. */
  dataset: string | DatasetLocation;
  /** Hands over the text of a `catalog` message (null: the page could not read it); later calls do nothing. */
  give(text: string | null): void;
}

/** The dataset of `msg`; without `catalogAhead`, the URL as given. */
export function initDataset(msg: Extract<ToWorker, { type: 'init' }>): InitDataset {
  if (!msg.catalogAhead) return { dataset: msg.dataset, give: () => undefined };
  let give: (text: string | null) => void = () => undefined;
  const given = new Promise<string | null>((resolve) => (give = resolve));
  // Waits a second longer than the page's read may take, so a late page never costs two reads.
  return { dataset: withCatalogText(urlLocation(msg.dataset), given, CATALOG_AHEAD_MS + 1000), give: (t) => give(t) };
}
