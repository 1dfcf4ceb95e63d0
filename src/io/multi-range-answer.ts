/**
 * What one request for several ranges (`multipart/byteranges`) gives, checked like a single range's
 * answer (range-answer.ts). A host may merge near ranges into one part (RFC 9110 §14.6), answer the
 * first range alone, or send the whole file; each is used for what it holds.
 */
import { ClimateQueryError } from '../contract/errors.ts';
import { byteRangesBoundary, type BytePart, parseByteRanges } from './byte-ranges.ts';
import type { FileIdentity } from './file-identity.ts';
import { describeHostAnswer, isPageAnswer } from './host-answer.ts';
import { parseContentRange } from './range-answer.ts';
import { markTransient, type TimedResponse } from './timed-fetch.ts';

/** A whole file sent for several ranges is kept when at most this much larger than they are; larger, it is not read on. */
const WHOLE_ANSWER_SLACK = 64 * 1024;

/**
 * What the answer to `ranges` holds. `parts`: the bytes of each range a part of the answer holds
 * (null for those it does not); `unsupported`: the answer shows the host does not send parts (a
 * 200, a single range, a body that is not parts), so later reads ask one range each; `whole`: the
 * whole file, checked, when the host sent it for about what was asked. Null: an answer not to use
 * (a 404, a page), whose ranges are read one by one and tell why. A failed request (5xx, 429) throws
 * a transient error; a file that changed throws `dataset_changed`.
 */
export async function multiRangeAnswer(
  id: FileIdentity,
  answer: TimedResponse,
  timed: (bytes: Uint8Array) => void,
  ranges: ReadonlyArray<readonly [number, number]>,
): Promise<{ parts: Array<Uint8Array | null>; unsupported: boolean; whole?: Uint8Array } | null> {
  const { response } = answer;
  const none = { parts: ranges.map(() => null), unsupported: true };
  if (response.status === 200 && !isPageAnswer(response)) {
    // The whole file: kept when it is about what was asked (as for one range), else not read on:
    // every multi-range read of a large file would otherwise download it whole.
    const declared = Number(response.headers.get('Content-Length') ?? NaN);
    const asked = ranges.reduce((n, [a, b]) => n + b - a, 0);
    if (Number.isFinite(declared) && declared <= asked + WHOLE_ANSWER_SLACK)
      return { ...none, whole: await id.wholeBody(answer, timed) };
    await answer.discard();
    return none;
  }
  if (response.status >= 500 || response.status === 429) {
    await answer.discard();
    throw markTransient(
      new ClimateQueryError('dataset_unavailable', `${id.url} could not be read: ${describeHostAnswer(response)}.`),
    );
  }
  if (response.status === 416) {
    await answer.discard();
    return none;
  }
  if (response.status !== 206 || isPageAnswer(response)) {
    await answer.discard();
    return null;
  }
  const body = await answer.body();
  timed(body);
  const boundary = byteRangesBoundary(response.headers.get('Content-Type'));
  let parts: BytePart[] | null;
  if (boundary) parts = parseByteRanges(body, boundary);
  else {
    // One range sent back as a plain 206 (a host that answers only the first): used for that one.
    const r = parseContentRange(response.headers.get('Content-Range'));
    parts = r && body.length === r.end - r.start + 1 ? [{ ...r, bytes: body }] : null;
  }
  if (!parts) return none;
  id.check(response, null);
  for (const p of parts) {
    if (p.total !== null) id.check(response, p.total);
    if (id.size !== null && p.end >= id.size) return none;
  }
  // Any part covering a range serves it, copied out when the part is larger (not to keep the whole part for one range).
  return {
    parts: ranges.map(([start, end]) => {
      const p = parts.find((x) => x.start <= start && end - 1 <= x.end);
      if (!p) return null;
      const bytes = p.bytes.subarray(start - p.start, end - p.start);
      return bytes.length === p.bytes.length ? bytes : bytes.slice();
    }),
    unsupported: !boundary,
  };
}
