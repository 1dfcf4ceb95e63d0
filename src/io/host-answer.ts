/**
 * Words for what a host answered when it did not answer the file. Static
 * hosts fail in a few typical ways (measured on ten hosts, docs/deploy.md):
 * an SPA fallback or a 404 page answered as `200 text/html`, a 404 or 403 for
 * a name the host maps differently, an S3 XML error. The message names what
 * came back and the likely cause, so the user fixes the host, not the data.
 */

/** True when the answer is a web page (or an XML error document), never a dataset file. */
export function isPageAnswer(response: Response): boolean {
  const type = (response.headers.get('Content-Type') ?? '').toLowerCase();
  return /^(text\/html|application\/xhtml\+xml|application\/xml|text\/xml)\b/.test(type);
}

/** True when `head`, the first bytes of a body, start an HTML or XML document. */
export function looksLikePage(head: Uint8Array): boolean {
  const text = new TextDecoder().decode(head.subarray(0, 64)).trimStart().toLowerCase();
  return (
    text.startsWith('<!doctype') ||
    text.startsWith('<html') ||
    text.startsWith('<?xml') ||
    text.startsWith('<head') ||
    text.startsWith('<error')
  );
}

/** The likely cause of a page answered instead of a file. */
export const PAGE_INSTEAD_OF_FILE =
  'the host answered a web page instead of the file: the file is missing at that address, or the host rewrites unknown paths to index.html (an SPA fallback or a 404 page sent as 200)';

/** "HTTP 404 Not Found: the file is missing …", the status with its usual cause on a static host. */
export function describeHostAnswer(response: Response): string {
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  switch (response.status) {
    case 404:
      return `${status}: the file is missing at that address (is the whole dataset folder on the host, with its file names unchanged?)`;
    case 401:
    case 403:
      return `${status}: the host refuses to serve it (a private bucket or folder, or a rule that blocks the name)`;
    case 405:
      return `${status}: the host does not allow GET here`;
    case 416:
      return `${status}: the host refused the byte range`;
    default:
      return response.status >= 500 ? `${status}: the host failed; try again later` : status;
  }
}
