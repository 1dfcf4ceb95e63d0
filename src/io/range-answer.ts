/**
 * What one Range request's answer gives, checked before its bytes are used: a 206 must start where
 * asked, be as long as its Content-Range says and name the file's size as first seen, and end where
 * asked unless the file ends first; a 416 is an empty read past the end; a 200 is the whole file
 * (a host that ignores Range), kept once checked. Faults that may pass are marked transient.
 */
import { ClimateQueryError } from '../contract/errors.ts';
import { absence } from './byte-source.ts';
import type { FileIdentity } from './file-identity.ts';
import { describeHostAnswer, isPageAnswer } from './host-answer.ts';
import { markTransient, type TimedResponse } from './timed-fetch.ts';

/** A Content-Range header: the bytes a part holds and the file's total size (null for `*`). */
export interface ContentRange {
  start: number;
  end: number;
  total: number | null;
}

export function parseContentRange(header: string | null): ContentRange | null {
  const m = header ? /^bytes\s+(\d+)-(\d+)\/(\d+|\*)$/i.exec(header.trim()) : null;
  return m ? { start: Number(m[1]), end: Number(m[2]), total: m[3] === '*' ? null : Number(m[3]) } : null;
}

/**
 * The bytes `length` from `offset` in `answer` to a request of that range; `whole` when the host
 * sent the whole file instead. `timed` tells the link meter of the body once received.
 */
export async function rangeAnswer(
  id: FileIdentity,
  answer: TimedResponse,
  timed: (bytes: Uint8Array) => void,
  offset: number,
  length: number,
): Promise<{ bytes: Uint8Array; whole: boolean }> {
  const { url } = id;
  const { response } = answer;
  if ((response.status === 206 || response.status === 200) && isPageAnswer(response)) {
    await answer.discard();
    throw id.notTheFile(`HTTP ${response.status}, ${response.headers.get('Content-Type')}`);
  }
  if (response.status === 206) {
    const range = parseContentRange(response.headers.get('Content-Range'));
    if (!range) {
      await answer.discard();
      throw new ClimateQueryError(
        'dataset_unavailable',
        `${url} answered a Range request without a valid Content-Range header; the server's Range support is broken.`,
      );
    }
    id.check(response, range.total);
    if (range.start !== offset || range.end < range.start) {
      await answer.discard();
      // Seen from proxies and CDNs that pass; another attempt costs little.
      throw markTransient(
        new ClimateQueryError(
          'dataset_unavailable',
          `${url} answered a Range request for byte ${offset} with bytes from ${range.start}; the server's Range support is broken.`,
        ),
      );
    }
    const bytes = await answer.body(range.end - range.start + 1);
    timed(bytes);
    const want = range.end - range.start + 1;
    if (bytes.length < want)
      throw markTransient(
        new ClimateQueryError(
          'dataset_unavailable',
          `Reading ${url} failed: the body ended after ${bytes.length} of ${want} bytes.`,
        ),
      );
    if (bytes.length > want)
      throw new ClimateQueryError(
        'dataset_unavailable',
        `${url} sent ${bytes.length} bytes for a range of ${want}; the server's Range support is broken.`,
      );
    // Fewer bytes than asked are only right at the end of the file: a shorter answer before it
    // (headers that match a cut body) would be taken as the end, and zeros read past it.
    const total = range.total ?? id.size;
    if (want < length && total !== null && range.end + 1 < total) {
      throw markTransient(
        new ClimateQueryError(
          'dataset_unavailable',
          `Reading ${url} failed: asked for bytes ${offset}–${offset + length - 1}, the server sent only up to ${range.end} of a ${total}-byte file.`,
        ),
      );
    }
    return { bytes: bytes.length > length ? bytes.subarray(0, length) : bytes, whole: false };
  }
  if (response.status === 416) {
    // Asked wholly past the end: block-aligned reads may do that on the last block.
    const range = /^bytes\s+\*\/(\d+)$/i.exec(response.headers.get('Content-Range')?.trim() ?? '');
    await answer.discard();
    id.check(response, range ? Number(range[1]) : null);
    if (id.size !== null && offset < id.size) throw id.changed(`byte ${offset} is past its end now`);
    return { bytes: new Uint8Array(0), whole: false };
  }
  if (response.status === 412) {
    await answer.discard();
    throw id.changed('its ETag no longer matches');
  }
  if (response.status === 200) return { bytes: await id.wholeBody(answer, timed), whole: true };
  await answer.discard();
  const error = new ClimateQueryError(
    'dataset_unavailable',
    `The dataset file ${url} could not be read: ${describeHostAnswer(response)}.`,
  );
  // 5xx and 429 pass; 404 and 403 do not.
  if (response.status >= 500 || response.status === 429) throw markTransient(error);
  throw response.status === 404 ? absence(error) : error;
}
