// `serve` survives hostile requests and its own file system: a real process
// on loopback, real files renamed and deleted under it, symlinks out of the root, malformed HTTP on a raw socket.
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { STATION_TIME_SCALES } from '../../src/contract/time-scales.ts';
import { MAX_REQUEST_BODY_BYTES } from '../../src/engine/router.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { mulberry32 } from '../../src/builder/prng.ts';
import { startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { catalogJsonSync } from '../helpers/catalog-json.ts';

const fx = inject('stationFixture');
const demo = inject('demoDataset');

let root = '';
let outside = '';
let child: ServeProcess['child'];
let url = '';

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cq-serve-root-'));
  outside = mkdtempSync(join(tmpdir(), 'cq-serve-outside-'));
  copyFileSync(join(fx.dataset, 'catalog.json'), join(root, 'catalog.json'));
  writeFileSync(join(root, 'a.bin'), Buffer.alloc(4096, 7));
  writeFileSync(join(root, 'count.bin'), Buffer.from(Array.from({ length: 4096 }, (_, i) => i % 251)));
  writeFileSync(join(outside, 'secret.txt'), 'TOP-SECRET-CONTENT');
  mkdirSync(join(root, 'sub'));
  symlinkSync(join(outside, 'secret.txt'), join(root, 'link-out.txt'));
  symlinkSync(outside, join(root, 'sub', 'dir-out'));
  symlinkSync(join(root, 'a.bin'), join(root, 'link-in.bin'));
  // A named pipe: opening it for reading would block until a writer comes.
  execFileSync('mkfifo', [join(root, 'pipe.bin')]);
  // A folder of made-up files, served as it is: what the dataset lists is the next block's subject.
  ({ child, url } = await startServeProcess(root, ['--all-files']));
});

afterAll(() => {
  child?.kill('SIGTERM');
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

/** One raw HTTP exchange on a fresh socket: the whole answer as text. */
function raw(request: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(request));
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString()));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
    socket.setTimeout(10_000, () => reject(new Error('raw request timed out')));
  });
}

const alive = async () => (await fetch(new URL('catalog.json', url), { method: 'HEAD' })).status === 200;

describe('serve: headers and ranges', () => {
  it('sends nosniff on files, errors, preflights and API answers', async () => {
    const answers = await Promise.all([
      fetch(new URL('a.bin', url)),
      fetch(new URL('nothing-here', url)),
      fetch(new URL('api/point/', url), { method: 'OPTIONS' }),
      fetch(new URL('api/point/', url), { method: 'POST', body: '{' }),
      fetch(new URL('api/point/', url)),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 404, 204, 400, 405]);
    for (const a of answers) expect(a.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('answers ascending ranges as multipart/byteranges parts; other multi-range requests 200 whole, unsatisfiable ones 416; garbage Range is ignored', async () => {
    const get = (range: string, file = 'a.bin') => fetch(new URL(file, url), { headers: { Range: range } });
    const parts = await get('bytes=3-5,1000-1001, 4000-', 'count.bin');
    expect(parts.status).toBe(206);
    const type = parts.headers.get('content-type')!;
    const boundary = /^multipart\/byteranges; boundary=(\S+)$/.exec(type)?.[1];
    expect(boundary, type).toBeTruthy();
    const body = Buffer.from(await parts.arrayBuffer());
    expect(Number(parts.headers.get('content-length'))).toBe(body.length);
    // Read by hand, as RFC 9110 §14.6 frames it (the engine's own parser is tested on this server in http-source tests).
    const text = body.toString('latin1');
    const chunks = text.split(`--${boundary}`);
    expect(chunks.at(-1)).toBe('--\r\n');
    const got = chunks.slice(1, -1).map((c) => {
      const [head, data] = c.split('\r\n\r\n');
      return {
        range: /Content-Range: (.*)\r?\n?/.exec(head!)?.[1]?.trim(),
        bytes: [...Buffer.from(data!.replace(/\r\n$/, ''), 'latin1')],
      };
    });
    expect(got).toEqual([
      { range: 'bytes 3-5/4096', bytes: [3, 4, 5] },
      { range: 'bytes 1000-1001/4096', bytes: [1000 % 251, 1001 % 251] },
      { range: 'bytes 4000-4095/4096', bytes: Array.from({ length: 96 }, (_, i) => (4000 + i) % 251) },
    ]);
    const many = Array.from({ length: 101 }, (_, i) => `${i * 10}-${i * 10 + 1}`).join(',');
    for (const range of [
      'bytes=0-1, 999999-',
      'bytes=x',
      'bytes=5-1,0-0',
      'bytes=10-19,0-1',
      'bytes=0-9,5-14',
      `bytes=${many}`,
      'items=0-1',
    ]) {
      const res = await get(range);
      expect(res.status, range).toBe(200);
      expect((await res.arrayBuffer()).byteLength, range).toBe(4096);
    }
    const one = await get('bytes=10-19');
    expect([one.status, (await one.arrayBuffer()).byteLength, one.headers.get('content-range')]).toEqual([
      206,
      10,
      'bytes 10-19/4096',
    ]);
    const none = await get('bytes=5000-,6000-6001');
    expect([none.status, none.headers.get('content-range')]).toEqual([416, 'bytes */4096']);
  });

  it('answers malformed HTTP with a JSON 400 or 431 of the contract', async () => {
    const smuggle = await raw(
      'POST /api/point/ HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    );
    expect(smuggle).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(smuggle.slice(smuggle.indexOf('\r\n\r\n') + 4))).toMatchObject({
      error: { code: 'bad_request' },
    });
    const badHeader = await raw('GET /a.bin HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n');
    expect(badHeader).toMatch(/^HTTP\/1\.1 400 [\s\S]*application\/json[\s\S]*"bad_request"/);
    const huge = await raw(`GET /a.bin HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431 [\s\S]*nosniff[\s\S]*"headers_too_large"/);
    expect(await alive()).toBe(true);
  });
});

describe('serve: confinement', () => {
  it('follows no symlink out of the dataset root, no ".." out of it, and serves no folder or pipe', async () => {
    const paths = [
      'pipe.bin',
      'sub',
      'link-out.txt',
      'sub/dir-out/secret.txt',
      `..%2f${outside.split('/').pop()}/secret.txt`,
      '%2e%2e/%2e%2e/etc/hostname',
      'sub/%00',
      '%E0%A4%A',
    ];
    for (const p of paths) {
      const res = await fetch(`${url}${p}`);
      expect(res.status, p).toBe(404);
      expect(await res.text(), p).not.toContain('TOP-SECRET-CONTENT');
    }
    const inside = await fetch(new URL('link-in.bin', url));
    expect([inside.status, (await inside.arrayBuffer()).byteLength]).toEqual([200, 4096]);
  });

  it('a folder dataset refuses catalog paths that leave its root or name another host', async () => {
    type Catalog = {
      stations: { store: string };
      rasters: { dataType: string; subDataType: string; files: { path: string }[] }[];
    };
    const wind = (c: Catalog) => c.rasters.find((l) => l.dataType === 'windspeed')!;
    const cases: [string, (c: Catalog) => void, string][] = [
      [fx.dataset, (c) => (c.stations.store = '../../../../etc/hostname'), 'climbs out'],
      [demo, (c) => (wind(c).files[0]!.path = '/etc/hostname'), 'is absolute'],
      // A URL only for a source referenced in place: a built layer's file is the dataset's own.
      [demo, (c) => (wind(c).files[0]!.path = 'https://example.invalid/x.tif'), 'only a layer referenced in place'],
      [demo, (c) => (wind(c).files[0]!.path = 'rasters/../../x.tif'), 'climbs out'],
    ];
    for (const [from, change, why] of cases) {
      const dir = mkdtempSync(join(tmpdir(), 'cq-catalog-'));
      try {
        const catalog = catalogJsonSync(join(from, 'catalog.json')) as Catalog;
        change(catalog);
        writeFileSync(join(dir, 'catalog.json'), JSON.stringify(catalog));
        const engine = createNodeEngine(dir);
        const [path, body] =
          from === demo
            ? [
                '/api/point/',
                {
                  wkts: 'POINT (19.03 -34.15)',
                  dataType: 'windspeed',
                  options: { subDataType: wind(catalog).subDataType, dataExtent: 'sa' },
                },
              ]
            : [
                '/api/nearest-station/',
                {
                  wkts: 'POINT (19 -33.9)',
                  dataTypes: ['rain_sum'],
                  options: { timeScale: 'daily' },
                  startDate: '2024-01-01',
                  endDate: '2024-01-02',
                },
              ];
        const answer = await engine.handle({ method: 'POST', path, body: JSON.stringify(body) });
        await engine.close();
        expect(answer.status, why).toBe(503);
        expect(answer.body).toMatchObject({
          error: { code: 'dataset_unavailable', message: expect.stringContaining(why) },
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});

describe('serve: load', () => {
  it('refuses 1 MiB WKT bodies while staying responsive to health probes', async () => {
    const head = JSON.stringify({
      wkts: '@',
      dataTypes: ['rain_sum'],
      options: { timeScale: 'daily' },
      startDate: '2024-01-01',
      endDate: '2024-01-02',
    }).split('@');
    const wkt = `POLYGON ((${'1 1,'.repeat(Math.floor((MAX_REQUEST_BODY_BYTES - 200) / 4))}1 1))`;
    const body = head[0] + wkt + head[1];
    expect(body.length).toBeGreaterThan(MAX_REQUEST_BODY_BYTES - 256);
    let done = false;
    const probes: boolean[] = [];
    // Health probes run the whole time the bodies are being sent and refused.
    const probing = (async () => {
      while (!done) {
        probes.push(await alive());
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    const times: number[] = [];
    // At least 20 bodies, and more (at most 200) until a handful of probes have run meanwhile:
    // on a fast machine 20 refusals can finish before six probes do.
    for (let i = 0; i < 200 && (i < 20 || probes.length <= 5); i++) {
      const t0 = performance.now();
      const res = await fetch(new URL('api/poly-aggregate/', url), { method: 'POST', body });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code: 'limit_exceeded', field: '/wkts' } });
      times.push(performance.now() - t0);
    }
    done = true;
    await probing;
    times.sort((a, b) => a - b);
    console.log(
      `serve: ${times.length} bodies of 1 MiB WKT refused, round trip over loopback median ${times[times.length >> 1]!.toFixed(0)} ms, max ${times[times.length - 1]!.toFixed(0)} ms; ${probes.length} health probes meanwhile, ${probes.filter((p) => !p).length} failed`,
    );
    expect(probes.length).toBeGreaterThan(5);
    expect(probes.every(Boolean)).toBe(true);
  });

  it('stays up through 10,000 requests while their files are renamed and deleted', async () => {
    const r = mulberry32(11);
    const names = ['churn-0.bin', 'churn-1.bin', 'churn-2.bin'];
    let stop = false;
    let churns = 0;
    // The churn runs in this process between requests: write, rename over,
    // delete, recreate, in a seeded order, as a redeploy would.
    const churn = (async () => {
      while (!stop) {
        const name = names[Math.floor(r() * names.length)]!;
        const path = join(root, name);
        const op = Math.floor(r() * 3);
        try {
          if (op === 0) {
            writeFileSync(`${path}.tmp`, Buffer.alloc(1000 + Math.floor(r() * 50_000), churns & 255));
            renameSync(`${path}.tmp`, path);
          } else if (op === 1) unlinkSync(path);
          else renameSync(path, join(root, names[(names.indexOf(name) + 1) % names.length]!));
        } catch {
          // ENOENT: the file was already gone; that is the point.
        }
        churns++;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const counts = new Map<number, number>();
    const bad: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < 10_000) {
        const i = next++;
        const name = names[i % names.length]!;
        const headers: Record<string, string> = i % 3 === 0 ? { Range: `bytes=${i % 2000}-${(i % 2000) + 99}` } : {};
        try {
          const res = await fetch(new URL(name, url), { headers, method: i % 7 === 0 ? 'HEAD' : 'GET' });
          const buf = await res.arrayBuffer();
          counts.set(res.status, (counts.get(res.status) ?? 0) + 1);
          if (![200, 206, 404, 416].includes(res.status)) bad.push(`#${i} ${res.status}`);
          if (res.status === 404 && i % 7 !== 0 && JSON.parse(Buffer.from(buf).toString()).error.code !== 'not_found')
            bad.push(`#${i} 404 not JSON`);
          if (
            (res.status === 200 || res.status === 206) &&
            i % 7 !== 0 &&
            buf.byteLength !== Number(res.headers.get('content-length'))
          )
            bad.push(`#${i} short body`);
        } catch (err) {
          bad.push(`#${i} ${(err as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    stop = true;
    await churn;
    console.log(`serve: 10000 requests under ${churns} renames/deletes: ${JSON.stringify(Object.fromEntries(counts))}`);
    expect(bad).toEqual([]);
    // The race was really run: files were both found and missing.
    expect(counts.get(404) ?? 0).toBeGreaterThan(100);
    expect((counts.get(200) ?? 0) + (counts.get(206) ?? 0)).toBeGreaterThan(100);
    expect(child.exitCode).toBeNull();
    expect(await alive()).toBe(true);
  }, 300_000);
});

describe('serve: what a dataset folder exposes', () => {
  let data = '';
  let serve: ServeProcess | undefined;
  beforeAll(async () => {
    data = mkdtempSync(join(tmpdir(), 'cq-serve-listed-'));
    execFileSync('cp', ['-r', `${demo}/.`, data]);
    writeFileSync(join(data, '.env'), 'SECRET=hunter2');
    mkdirSync(join(data, '.git'));
    writeFileSync(join(data, '.git', 'config'), '[remote "origin"] url = secret');
    writeFileSync(join(data, 'notes.txt'), 'operator notes');
    serve = await startServeProcess(data);
  });
  afterAll(() => {
    serve?.child.kill('SIGTERM');
    rmSync(data, { recursive: true, force: true });
  });

  it('serves what the catalog and index list (a store’s objects and metadata too), no dotfile and nothing else', async () => {
    const catalog = catalogJsonSync(join(data, 'catalog.json')) as {
      files: Array<{ path: string }>;
      rasters: Array<{ layout?: string; zarr?: { variable: string }; files: Array<{ path: string }> }>;
    };
    const zarr = catalog.rasters.find((l) => l.layout === 'zarr')!;
    const store = zarr.files[0]!.path;
    const ok = [
      'catalog.json',
      ...catalog.files.map((f) => f.path),
      `${store}/${zarr.zarr!.variable}/0.10.10`,
      `${store}/.zmetadata`,
      `${store}/${zarr.zarr!.variable}/.zarray`,
    ];
    // A station file of every scale the demo holds (dekadal included), as a browser's engine reads them.
    for (const scale of STATION_TIME_SCALES) {
      const dir = join(data, 'stations', scale);
      const group = readdirSync(dir)[0]!;
      ok.push(`stations/${scale}/${group}/${readdirSync(join(dir, group))[0]!}`);
    }
    for (const p of ok) expect((await fetch(`${serve!.url}${p}`)).status, p).toBe(200);
    for (const p of ['.env', '.git/config', 'notes.txt', '%2eenv', 'rasters/.hidden', `${store}/../.env`]) {
      const res = await fetch(`${serve!.url}${p}`);
      expect(res.status, p).toBe(404);
      expect(await res.text(), p).not.toMatch(/hunter2|secret|operator notes/);
    }
  });

  it('a client that sends its body slowly is cut off within the request time limit, and the server answers others', async () => {
    const { port } = new URL(serve!.url);
    const t0 = Date.now();
    const closed = await new Promise<number>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          'POST /api/point/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{',
        );
        // A byte every second, never the whole body.
        const drip = setInterval(() => socket.write(' '), 1000);
        socket.on('close', () => {
          clearInterval(drip);
          resolve(Date.now() - t0);
        });
      });
      socket.on('error', () => undefined);
    });
    expect(closed).toBeLessThan(45_000);
    expect((await fetch(`${serve!.url}catalog.json`)).status).toBe(200);
  }, 60_000);
});
