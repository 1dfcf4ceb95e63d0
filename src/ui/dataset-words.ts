/**
 * What the page says about the dataset it was opened on: the advice after a
 * catalog that could not be read, and the warning for a host without Range
 * support. The engine Worker reads the files and names what went wrong; the
 * page adds what the person can do about it here (`?data=`, the demo).
 */
import type { ErrorParams } from '../contract/errors.ts';

/** What to do about a missing or wrong catalog, when the app was opened with ?data=. */
export const DATA_ADVICE = 'Check that ?data= points to the folder that holds catalog.json.';

/** What to do when the built-in demo dataset is missing. */
export const DEMO_ADVICE =
  'Build the demo dataset with `npx climate-query demo`, or open the app with ?data= and the address of your own dataset.';

/**
 * The message at the top of the page for a dataset that could not be opened:
 * the engine's words, and the advice unless the host was not reached at all
 * (then no address in the page would help).
 */
export function datasetErrorText(error: { message: string; params?: ErrorParams }, advice: string): string {
  return error.params?.reason === 'unreachable' ? error.message : `${error.message} ${advice}`;
}

/** The warning for a host that answers whole files to Range requests (queries still answer, slowly). */
export function rangeWarningText(datasetUrl: string): string {
  const url = new URL('catalog.json', datasetUrl).href;
  return `The server ${new URL(datasetUrl).host} does not support HTTP Range requests (it answered 200 instead of 206 to a request for one byte of ${url}). Station and layer reads need Range support to fetch only the bytes a query uses; here each query downloads whole files, so answers will be slow and use much more data.`;
}
