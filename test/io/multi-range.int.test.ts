// Several ranges of a file in one request (io/byte-ranges.ts, http-source readRanges), on real
// hosts: where the host answers multipart/byteranges (nginx, the engine's own server) the ranges
// come in one request; everywhere else (a host answering only the first range, the whole file,
// or nothing usable) they come one by one as before. On every host the bytes are the file's.
import { mkdtemp, mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { urlLocation } from '../../src/dataset/location.ts';
import { byteRangesBody, byteRangesBoundary, parseByteRanges } from '../../src/io/byte-ranges.ts';
import { serveStatic } from '../../src/node/static-files.ts';
import { HOSTS, hostInstalled, isSkipped, type RunningHost } from '../helpers/hosts.ts';

const SIZE = 200_000;
/** The Range header of the location's probe (the third-last and last bytes of the first file it opens). */
const PROBE = `bytes=${SIZE - 3}-${SIZE - 3},${SIZE - 1}-${SIZE - 1}`;
/** A byte that depends on its offset, so a part from the wrong place cannot pass. */
const byteAt = (i: number) => (Math.imul(i, 2654435761) >>> 24) & 255;
const file = Uint8Array.from({ length: SIZE }, (_, i) => byteAt(i));
const RANGES: Array<[number, number]> = [
  [0, 10],
  [5000, 5100],
  [70_000, 70_001],
  [100_000, 160_000],
  [199_990, SIZE],
];

describe('multipart/byteranges bodies', () => {
  const parts = [
    { start: 3, end: 5 },
    { start: 100, end: 199 },
  ];
  const framed = (boundary: string) => {
    const b = byteRangesBody(parts, SIZE, 'application/octet-stream', boundary);
    const chunks = parts.flatMap((p, i) => [Buffer.from(b.heads[i]!, 'latin1'), file.subarray(p.start, p.end + 1)]);
    const body = Buffer.concat([...chunks, Buffer.from(b.tail, 'latin1')]);
    expect(body.length).toBe(b.length);
    return body;
  };

  it('reads back what the server frames, by length (a body holding the boundary is still read right)', () => {
    const body = framed('xyz');
    // The boundary inside a part's bytes must not end it: write "--xyz" into the first part's data.
    const inside = Buffer.from(body);
    const at = inside.indexOf(Buffer.from([byteAt(100)]), inside.indexOf('bytes 100-199'));
    inside.write('\r\n--xyz', at + 10, 'latin1');
    const got = parseByteRanges(new Uint8Array(inside), 'xyz')!;
    expect(got.map((p) => [p.start, p.end, p.total, p.bytes.length])).toEqual([
      [3, 5, SIZE, 3],
      [100, 199, SIZE, 100],
    ]);
    expect([...parseByteRanges(new Uint8Array(body), 'xyz')![1]!.bytes]).toEqual([...file.subarray(100, 200)]);
    // A preamble before the first delimiter is allowed.
    expect(parseByteRanges(new Uint8Array(Buffer.concat([Buffer.from('\r\n'), body])), 'xyz')).toHaveLength(2);
  });

  it('refuses a body cut short, without its closing delimiter, or with a part lacking Content-Range', () => {
    const body = framed('b0');
    expect(parseByteRanges(new Uint8Array(body.subarray(0, body.length - 40)), 'b0')).toBeNull();
    expect(parseByteRanges(new Uint8Array(body.subarray(0, body.length - 8)), 'b0')).toBeNull();
    const noRange = Buffer.from(
      body.toString('latin1').replace('Content-Range: bytes 3-5', 'X-Range: bytes 3-5'),
      'latin1',
    );
    expect(parseByteRanges(new Uint8Array(noRange), 'b0')).toBeNull();
    expect(parseByteRanges(new Uint8Array(body), 'other')).toBeNull();
  });

  it('finds the boundary in the Content-Type, quoted or not, and nothing in other types', () => {
    expect(byteRangesBoundary('multipart/byteranges; boundary=00000000000000000002')).toBe('00000000000000000002');
    expect(byteRangesBoundary('Multipart/ByteRanges;boundary="a b"')).toBe('a b');
    expect(byteRangesBoundary('application/octet-stream')).toBeNull();
    expect(byteRangesBoundary('multipart/byteranges')).toBeNull();
    expect(byteRangesBoundary(null)).toBeNull();
  });
});

let site: string;
beforeAll(async () => {
  site = await mkdtemp(join(tmpdir(), 'cq-multi-range-'));
  await mkdir(join(site, 'data/demo'), { recursive: true });
  await writeFile(
    join(site, 'data/demo/catalog.json'),
    JSON.stringify({ name: 'multi-range test', pad: 'x'.repeat(2000) }),
  );
  await writeFile(join(site, 'data/demo/count.bin'), file);
});
afterAll(async () => {
  await rm(site, { recursive: true, force: true });
});

/** Reads RANGES of count.bin under `base` through the location's sources; returns the bytes and the requests made. */
async function readThrough(base: string, ranges: Array<[number, number]> = RANGES) {
  const sent: Array<{ range: string | null; status: number; type: string | null }> = [];
  const counting: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    const range = new Headers(init?.headers).get('Range');
    if (process.env.CQ_DEBUG && range === PROBE)
      console.log(
        'probe',
        String(input),
        res.status,
        res.headers.get('content-type'),
        res.headers.get('content-length'),
      );
    // The location's probe (two bytes of the first file it opens) is not one of the reads.
    if (String(input).endsWith('count.bin') && range !== PROBE)
      sent.push({ range, status: res.status, type: res.headers.get('content-type') });
    return res;
  };
  const location = urlLocation(base, { fetch: counting });
  const source = location.open('count.bin', { bytes: SIZE });
  // As the station reader does on opening its index: the probe starts; the reads below start once it has answered.
  location.severalRanges?.();
  await new Promise((r) => setTimeout(r, 300));
  const got = await Promise.all(source.readRanges!(ranges));
  return { got, sent };
}

const expectFileBytes = (got: Uint8Array[], ranges: Array<[number, number]> = RANGES) =>
  ranges.forEach(([s, e], i) => {
    expect(got[i]!.length, `range ${s}-${e}`).toBe(e - s);
    expect(Buffer.compare(Buffer.from(got[i]!), Buffer.from(file.subarray(s, e))), `range ${s}-${e}`).toBe(0);
  });

describe("the engine's own server", () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      void serveStatic(site, new URL(req.url!, 'http://x').pathname, req, res).then((served) => {
        if (!served) res.writeHead(404).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/data/demo/`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('answers the five ranges in one multipart request, each exactly the file bytes', async () => {
    const { got, sent } = await readThrough(url);
    expectFileBytes(got);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.range).toBe('bytes=0-9,5000-5099,70000-70000,100000-159999,199990-199999');
    expect(byteRangesBoundary(sent[0]!.type)).not.toBeNull();
  });

  it('a file rewritten at the same size between two multi-range reads is dataset_changed, never a mix', async () => {
    const path = join(site, 'data/demo/changing.bin');
    await writeFile(path, file);
    const location = urlLocation(url);
    const source = location.open('changing.bin', { bytes: SIZE });
    location.severalRanges?.();
    await new Promise((r) => setTimeout(r, 300));
    expectFileBytes(await Promise.all(source.readRanges!(RANGES)));
    // Another build of the same size: its ETag (size and mtime) differs.
    await writeFile(
      path,
      Uint8Array.from(file, (b) => 255 - b),
    );
    await utimes(path, new Date(), new Date(Date.now() + 5000));
    const later: Array<[number, number]> = [
      [20, 30],
      [6000, 6100],
    ];
    await expect(Promise.all(source.readRanges!(later))).rejects.toMatchObject({ code: 'dataset_changed' });
  });

  it('severalRangesKnown: resolves once the probe has answered, or at its bound when the probe stalls', async () => {
    const sent: string[] = [];
    const location = urlLocation(url, {
      fetch: (input, init) => {
        const range = new Headers(init?.headers).get('Range') ?? '';
        if (range !== PROBE) sent.push(range);
        return fetch(input, init);
      },
    });
    const source = location.open('count.bin', { bytes: SIZE });
    location.severalRanges?.();
    // No fixed pause: the reads wait for the answer itself.
    await location.severalRangesKnown!(5_000);
    expectFileBytes(await Promise.all(source.readRanges!(RANGES)));
    expect(sent).toHaveLength(1);
    // A probe that stalls: the wait ends at its bound, and the reads go one range each.
    const stalled = urlLocation(url, {
      fetch: (input, init) =>
        new Headers(init?.headers).get('Range') === PROBE
          ? new Promise<Response>((_, reject) =>
              init?.signal?.addEventListener('abort', () => reject(new Error('aborted'))),
            )
          : fetch(input, init),
    });
    const slow = stalled.open('count.bin', { bytes: SIZE });
    stalled.severalRanges?.();
    const t0 = performance.now();
    await stalled.severalRangesKnown!(120);
    const waited = performance.now() - t0;
    expect(waited).toBeGreaterThanOrEqual(110);
    expect(waited).toBeLessThan(2_000);
    expect(stalled.severalRanges?.()).toBe(false);
    expectFileBytes(await Promise.all(slow.readRanges!(RANGES)));
  });

  it('with multiRange off, one request per range', async () => {
    const sent: string[] = [];
    const location = urlLocation(url, {
      multiRange: false,
      fetch: (input, init) => {
        sent.push(new Headers(init?.headers).get('Range') ?? '');
        return fetch(input, init);
      },
    });
    expectFileBytes(await Promise.all(location.open('count.bin', { bytes: SIZE }).readRanges!(RANGES)));
    expect(sent).toHaveLength(RANGES.length);
  });
});

describe('a host answering multipart for the probe, then something else', () => {
  /**
   * Serves the probe as parts, then answers several ranges of count.bin per `mode`: the whole file
   * (200) for ranges of a third of it (not read on) or of three quarters (kept: no more requests),
   * the first range only, or a broken body.
   */
  for (const mode of ['whole', 'whole, most asked', 'first', 'broken'] as const) {
    it(`${mode}: the ranges are read one by one, right, and later reads ask one range each`, async () => {
      const server = createServer((req, res) => {
        const path = new URL(req.url!, 'http://x').pathname;
        const range = req.headers.range ?? '';
        if (range === PROBE || !range.includes(',')) {
          void serveStatic(site, path, req, res);
          return;
        }
        if (mode.startsWith('whole')) res.writeHead(200, { 'Content-Length': SIZE }).end(Buffer.from(file));
        else if (mode === 'first') {
          const [s, e] = range.slice(6).split(',')[0]!.split('-').map(Number) as [number, number];
          res.writeHead(206, { 'Content-Range': `bytes ${s}-${e}/${SIZE}` }).end(Buffer.from(file.subarray(s, e + 1)));
        } else
          res
            .writeHead(206, { 'Content-Type': 'multipart/byteranges; boundary=zz' })
            .end('--zz\r\nContent-Range: bytes 0-9/200000\r\n\r\nshort');
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      try {
        const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/data/demo/`;
        const most: Array<[number, number]> = [
          [0, 100_000],
          [150_000, SIZE],
        ];
        const ranges = mode === 'whole, most asked' ? most : RANGES;
        const { got, sent } = await readThrough(url, ranges);
        expectFileBytes(got, ranges);
        expect(sent[0]!.range).toContain(',');
        // After the multi-range answer: only single ranges, the ones the answer did not hold.
        const rest = sent.slice(1);
        expect(
          rest.every((s) => !s.range!.includes(',')),
          JSON.stringify(sent),
        ).toBe(true);
        expect(rest).toHaveLength(
          mode === 'whole, most asked' ? 0 : mode === 'first' ? RANGES.length - 1 : RANGES.length,
        );
      } finally {
        server.closeAllConnections();
        await new Promise<void>((r) => server.close(() => r()));
      }
    });
  }
});

describe('real hosts', () => {
  // nginx answers multipart/byteranges by default; the others answer the first range, the whole
  // file, or refuse: the probe tells, and the bytes are right on every one.
  const expectParts: Record<string, boolean> = { nginx: true };
  for (const name of ['nginx', 'vite-dev', 'vite-preview', 's3', 'serve', 'sirv', 'http-server', 'python']) {
    const missing = hostInstalled(name);
    if (missing) {
      it.skip(`${name}: SKIPPED — ${missing}`, () => {});
      continue;
    }
    it(`${name}: the file's bytes for five ranges${expectParts[name] ? ', in one request' : ''}`, async () => {
      const host = await HOSTS[name]!(site);
      if (isSkipped(host)) throw new Error(`${name} could not start: ${host.skipped}`);
      try {
        const { got, sent } = await readThrough(new URL('data/demo/', (host as RunningHost).url).href);
        expectFileBytes(got);
        if (process.env.CQ_DEBUG) console.log(name, JSON.stringify(sent));
        if (expectParts[name]) expect(sent.map((s) => s.status)).toEqual([206]);
        // Never more requests than ranges, plus the one that found multi-range unusable.
        expect(sent.length).toBeLessThanOrEqual(RANGES.length + 1);
      } finally {
        await host.stop();
      }
    }, 120_000);
  }
});
