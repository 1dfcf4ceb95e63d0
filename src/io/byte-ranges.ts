/**
 * Several byte ranges of a file in one HTTP request (RFC 9110 §14.2, §14.6):
 * the `Range` header that asks for them, and the `multipart/byteranges`
 * body a host answers with. Pure and free of node:* imports: it is bundled
 * for the browser, and the Node server builds its bodies with
 * {@link byteRangesBody}'s framing.
 */

/** One part of a `multipart/byteranges` body: bytes `start`–`end` (inclusive) of a file of `total` bytes. */
export interface BytePart {
  start: number;
  end: number;
  /** The file's size as the part says it; null for `*`. */
  total: number | null;
  bytes: Uint8Array;
}

/** The `Range` header asking for each `[start, end)` of `ranges`, in order. */
export function rangesHeader(ranges: ReadonlyArray<readonly [number, number]>): string {
  return `bytes=${ranges.map(([s, e]) => `${s}-${e - 1}`).join(',')}`;
}

/** The boundary of a `multipart/byteranges` Content-Type, or null when the answer is not one. */
export function byteRangesBoundary(contentType: string | null): string | null {
  if (!contentType || !/^\s*multipart\/byteranges\s*;/i.test(contentType)) return null;
  const m = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i.exec(contentType);
  return m ? (m[1] ?? m[2]!) : null;
}

const CRLF_CRLF = [13, 10, 13, 10];

/**
 * The parts of a `multipart/byteranges` body, each as long as its
 * Content-Range says (bodies are binary: they are never searched for the
 * boundary). Null when the body is not well formed: a part without a
 * valid Content-Range, one cut short, or no closing delimiter. The caller
 * then reads the ranges one by one, as from a host without this feature.
 */
export function parseByteRanges(body: Uint8Array, boundary: string): BytePart[] | null {
  const delimiter = new TextEncoder().encode(`--${boundary}`);
  const at = (pos: number, bytes: ArrayLike<number>) => {
    if (pos < 0 || pos + bytes.length > body.length) return false;
    for (let i = 0; i < bytes.length; i++) if (body[pos + i] !== bytes[i]) return false;
    return true;
  };
  // A preamble (usually one CRLF) may come before the first delimiter.
  let pos = indexOf(body, delimiter, 0, 1024);
  if (pos < 0) return null;
  const parts: BytePart[] = [];
  const text = new TextDecoder('latin1');
  for (;;) {
    pos += delimiter.length;
    if (at(pos, [45, 45])) return parts.length ? parts : null; // "--": the closing delimiter
    // Transport padding (spaces, tabs) may follow a delimiter before its CRLF.
    while (body[pos] === 32 || body[pos] === 9) pos++;
    if (!at(pos, [13, 10])) return null;
    pos += 2;
    const headEnd = indexOf(body, CRLF_CRLF, pos, 4096);
    if (headEnd < 0) return null;
    const head = text.decode(body.subarray(pos, headEnd));
    const m = /^content-range:\s*bytes\s+(\d+)-(\d+)\/(\d+|\*)\s*$/im.exec(head);
    if (!m) return null;
    const start = Number(m[1]);
    const end = Number(m[2]);
    if (end < start) return null;
    pos = headEnd + 4;
    const length = end - start + 1;
    if (pos + length > body.length) return null;
    parts.push({ start, end, total: m[3] === '*' ? null : Number(m[3]), bytes: body.subarray(pos, pos + length) });
    pos += length;
    if (!at(pos, [13, 10]) || !at(pos + 2, delimiter)) return null;
    pos += 2;
  }
}

/** Where `needle` first starts in `haystack` at or after `from`, looking at most `within` bytes on; -1 if not there. */
function indexOf(haystack: Uint8Array, needle: ArrayLike<number>, from: number, within: number): number {
  const last = Math.min(haystack.length - needle.length, from + within);
  outer: for (let i = from; i <= last; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/**
 * The framing of a `multipart/byteranges` body: the text before each part
 * (`heads[i]`) and after the last (`tail`), to be written around the parts'
 * bytes; `length` is the body's whole length, for Content-Length.
 */
export function byteRangesBody(
  ranges: ReadonlyArray<{ start: number; end: number }>,
  size: number,
  contentType: string,
  boundary: string,
): { heads: string[]; tail: string; length: number } {
  const heads = ranges.map(
    (r, i) =>
      `${i === 0 ? '' : '\r\n'}--${boundary}\r\nContent-Type: ${contentType}\r\nContent-Range: bytes ${r.start}-${r.end}/${size}\r\n\r\n`,
  );
  const tail = `\r\n--${boundary}--\r\n`;
  const length =
    heads.reduce((n, h) => n + h.length, 0) + tail.length + ranges.reduce((n, r) => n + r.end - r.start + 1, 0);
  return { heads, tail, length };
}
