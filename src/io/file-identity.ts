/**
 * Which version of a file a host is serving, as its answers show it: the size the catalog lists
 * (else the first one seen), the first ETag and Last-Modified. Every answer is checked against
 * them before its bytes are used, so bytes of two versions are never mixed; a whole body sent for
 * a range is checked to be the whole file (its length, its SHA-256 where the catalog gives one).
 */
import { ClimateQueryError } from '../contract/errors.ts';
import type { ExpectedFile } from './byte-source.ts';
import { sha256Hex } from './digest.ts';
import { looksLikePage, PAGE_INSTEAD_OF_FILE } from './host-answer.ts';
import { markTransient, type TimedResponse } from './timed-fetch.ts';

export class FileIdentity {
  /** The file's size in bytes: the catalog's, else the first answer's; null until known. */
  size: number | null;
  private etag: string | null = null;
  private modified: string | null = null;

  constructor(
    readonly url: string,
    private readonly expected: ExpectedFile = {},
  ) {
    this.size = expected.bytes ?? null;
  }

  /** The error of a file that is not the version first seen (or the catalog's). */
  changed(what: string): ClimateQueryError {
    return new ClimateQueryError(
      'dataset_changed',
      `The dataset file ${this.url} is not the one its index records (${what}): it changed while being read, or the host serves another version. If a redeploy is under way, ask again in a moment; otherwise copy the dataset to the host again, whole.`,
    );
  }

  /** The host answered a page (SPA fallback, 404 page as 200, S3 XML): not the file, and not a changed dataset. */
  notTheFile(what: string): ClimateQueryError {
    return new ClimateQueryError(
      'dataset_unavailable',
      `The dataset file ${this.url} could not be read: ${PAGE_INSTEAD_OF_FILE} (${what}).`,
    );
  }

  /** Checks an answer's identity (and the file's `total` size, where it says one) against what was seen. */
  check(response: Response, total: number | null): void {
    const tag = response.headers.get('ETag');
    if (tag) {
      if (this.etag && tag !== this.etag) throw this.changed(`ETag ${this.etag} became ${tag}`);
      this.etag ??= tag;
    }
    // Hosts without ETags (Python's http.server, some WebDAV shares) still say when the file last
    // changed: a different date is a different file, even of the same size.
    const date = response.headers.get('Last-Modified');
    if (date) {
      if (this.modified && date !== this.modified) throw this.changed(`Last-Modified ${this.modified} became ${date}`);
      this.modified ??= date;
    }
    if (total !== null) {
      if (this.size !== null && total !== this.size)
        throw this.changed(`${this.size} bytes expected, the server has ${total}`);
      this.size ??= total;
    }
  }

  /** The body of a 200 (the server ignores Range), checked to be the whole file, to keep rather than download again per read. */
  async wholeBody(answer: TimedResponse, timed: (bytes: Uint8Array) => void): Promise<Uint8Array> {
    const { response } = answer;
    const size = this.size;
    const declared = Number(response.headers.get('Content-Length') ?? NaN);
    this.check(response, null);
    // The whole file: at most its catalogued size (a page or a bomb is cut there), else the default bound.
    const bytes = await answer.body(size !== null ? size + 1 : undefined);
    timed(bytes);
    // A page sent without a Content-Type (or as octet-stream) is still a page.
    if (size !== null && bytes.length !== size && looksLikePage(bytes))
      throw this.notTheFile(`HTTP 200, ${bytes.length} bytes of HTML where ${size} bytes of data were expected`);
    if (Number.isFinite(declared) && bytes.length < declared) {
      throw markTransient(
        new ClimateQueryError(
          'dataset_unavailable',
          `Reading ${this.url} failed: the body ended after ${bytes.length} of ${declared} bytes.`,
        ),
      );
    }
    if (size !== null && bytes.length !== size)
      throw this.changed(`${size} bytes expected, the server sent ${bytes.length}`);
    if (this.expected.sha256 && (await sha256Hex(bytes)) !== this.expected.sha256)
      throw this.changed('its SHA-256 differs from the catalog');
    this.size ??= bytes.length;
    return bytes;
  }
}
