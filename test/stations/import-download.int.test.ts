/**
 * `climate-query import gsod --station … --years …` against a mirror of NCEI's folders on a real
 * HTTP server: the files are fetched from NCEI's documented paths into a cache that keeps them,
 * a second run fetches nothing, a file cut short is resumed from where it stopped (a Range
 * request), a station-year NCEI has no file for is named, and the answers equal an import of the
 * same files named by hand. Without a host it says so in a sentence and keeps what it has.
 */
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadArchive } from '../../src/builder/import/download.ts';
import { cli } from '../helpers/cli.ts';
import { nearestAnswer } from '../helpers/nearest-answer.ts';
import { type RangeServer, startRangeServer } from '../helpers/range-server.ts';

const HEADER =
  '"STATION","DATE","LATITUDE","LONGITUDE","ELEVATION","NAME","TEMP","TEMP_ATTRIBUTES","DEWP","DEWP_ATTRIBUTES","SLP","SLP_ATTRIBUTES","STP","STP_ATTRIBUTES","VISIB","VISIB_ATTRIBUTES","WDSP","WDSP_ATTRIBUTES","MXSPD","GUST","MAX","MAX_ATTRIBUTES","MIN","MIN_ATTRIBUTES","PRCP","PRCP_ATTRIBUTES","SNDP","FRSHTT"';
const STATION = { id: '68816099999', lat: -33.9648, lon: 18.6017, elev: 46.0, name: 'CAPE TOWN INTERNATIONAL, SF' };

let root: string;
let mirror: RangeServer;

/** A GSOD year file of STATION: every day of June, values from the day and the year. */
function gsodYear(year: number): string {
  const rows = [HEADER];
  for (let d = 1; d <= 30; d++) {
    const day = `${year}-06-${String(d).padStart(2, '0')}`;
    const temp = 55 + ((d * 7 + year) % 30) / 2;
    const q = (v: number, w: number, dp: number) => `"${v.toFixed(dp).padStart(w)}"`;
    rows.push(
      [
        `"${STATION.id}"`,
        `"${day}"`,
        `"${STATION.lat}"`,
        `"${STATION.lon}"`,
        `"${STATION.elev}"`,
        `"${STATION.name}"`,
        q(temp, 6, 1),
        '"24"',
        q(45.2, 6, 1),
        '"24"',
        q(1015.2, 6, 1),
        '"24"',
        q(9999.9, 6, 1),
        '" 0"',
        q(6.2, 5, 1),
        '"24"',
        q(8.1, 5, 1),
        '"24"',
        q(15.9, 5, 1),
        q(999.9, 5, 1),
        q(temp + 9, 6, 1),
        '" "',
        q(temp - 8, 6, 1),
        '" "',
        q((d % 5) / 10, 5, 2),
        '"G"',
        q(999.9, 5, 1),
        '"000000"',
      ].join(','),
    );
  }
  return `${rows.join('\n')}\n`;
}

const path = (year: number) => `data/global-summary-of-the-day/access/${year}/${STATION.id}.csv`;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cq-download-'));
  for (const y of [2022, 2024]) {
    await mkdir(join(root, 'ncei', ...path(y).split('/').slice(0, -1)), { recursive: true });
    await writeFile(join(root, 'ncei', ...path(y).split('/')), gsodYear(y));
  }
  mirror = await startRangeServer(join(root, 'ncei'));
});
afterAll(async () => {
  await mirror?.close();
  await rm(root, { recursive: true, force: true });
});

const download = (out: string, cache: string, host = mirror.url) =>
  cli([
    'import',
    'gsod',
    ...['--station', '688160-99999', '--years', '2022-2024'],
    ...['--mirror', host, '--cache', cache, '--out', out],
  ]);

describe('import gsod --station --years from a mirror of NCEI', () => {
  it('fetches each station-year from its NCEI path, names the year without a file, and answers as an import of the same files', async () => {
    const cache = join(root, 'cache');
    const out = join(root, 'downloaded');
    // A cut earlier run left the first half of 2024's file.
    const whole = await readFile(join(root, 'ncei', ...path(2024).split('/')));
    await mkdir(join(cache, ...path(2024).split('/').slice(0, -1)), { recursive: true });
    await writeFile(join(cache, ...path(2024).split('/')) + '.part', whole.subarray(0, 1000));
    mirror.reset();
    const r = await download(out, cache);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/NCEI has no gsod file for: 68816099999 2023\./);
    expect(mirror.log.filter((e) => e.path === `/${path(2022)}`).map((e) => [e.range, e.status])).toEqual([
      [null, 200],
    ]);
    // The cut file went on from byte 1000.
    expect(mirror.log.filter((e) => e.path === `/${path(2024)}`).map((e) => [e.range, e.status])).toEqual([
      ['bytes=1000-', 206],
    ]);
    expect(await readFile(join(cache, ...path(2024).split('/')))).toEqual(whole);

    const byHand = join(root, 'by-hand');
    const named = await cli([
      'import',
      'gsod',
      join(root, 'ncei', ...path(2022).split('/')),
      join(root, 'ncei', ...path(2024).split('/')),
      '--out',
      byHand,
    ]);
    expect(named.code, named.stderr).toBe(0);
    for (const [from, to] of [
      ['2022-06-01', '2022-06-30'],
      ['2024-06-01', '2024-06-30'],
    ]) {
      const got = await nearestAnswer(
        out,
        STATION.lon,
        STATION.lat,
        ['temperature_mean', 'temperature_max', 'rain_sum'],
        'daily',
        from!,
        to!,
      );
      expect(Object.keys(got.data)).toHaveLength(30);
      expect(got).toEqual(
        await nearestAnswer(
          byHand,
          STATION.lon,
          STATION.lat,
          ['temperature_mean', 'temperature_max', 'rain_sum'],
          'daily',
          from!,
          to!,
        ),
      );
    }
  });

  it('a second run fetches nothing the cache holds', async () => {
    mirror.reset();
    const r = await download(join(root, 'downloaded'), join(root, 'cache'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/0 file\(s\) downloaded \(0\.0 MB\), 2 already in/);
    expect(mirror.log.map((e) => e.path)).toEqual([`/${path(2023)}`]);
  });

  it("--near finds the stations within the radius in NOAA's station list, nearest first, and downloads theirs", async () => {
    await mkdir(join(root, 'ncei', 'pub', 'data', 'noaa'), { recursive: true });
    await writeFile(
      join(root, 'ncei', 'pub', 'data', 'noaa', 'isd-history.csv'),
      [
        '"USAF","WBAN","STATION NAME","CTRY","ST","CALL","LAT","LON","ELEV(M)","BEGIN","END"',
        '"688160","99999","CAPE TOWN INTL","SF","","FACT","-33.965","+018.602","+0046.0","19490101","20250826"',
        '"688170","99999","STELLENBOSCH","SF","","","-33.930","+018.860","+0120.0","19900101","20250826"',
        '"688280","99999","GEORGE","SF","","FAGG","-34.006","+022.379","+0197.5","19490101","20250826"',
      ].join('\n'),
    );
    mirror.reset();
    const r = await cli([
      'import',
      'gsod',
      ...['--near', '18.86,-33.93', '--radius', '50', '--years', '2022-2024'],
      ...['--mirror', mirror.url, '--cache', join(root, 'cache-near'), '--out', join(root, 'near')],
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /2 gsod station\(s\) within 50 km of 18\.86,-33\.93:\n {2}688170-99999 {2}STELLENBOSCH {2}0\.0 km\n {2}688160-99999 {2}CAPE TOWN INTL {2}2\d\.\d km\n/,
    );
    expect(r.stderr).toMatch(
      /NCEI has no gsod file for: 68817099999 2022, 68817099999 2023, 68817099999 2024, 68816099999 2023\./,
    );
    expect(mirror.log.some((e) => e.path.includes('68828099999'))).toBe(false);
    const got = await nearestAnswer(
      join(root, 'near'),
      STATION.lon,
      STATION.lat,
      ['temperature_mean'],
      'daily',
      '2024-06-01',
      '2024-06-30',
    );
    expect(Object.keys(got.data)).toHaveLength(30);
  });

  it("ghcnh --near reads NOAA's GHCNh station list as published: names with commas, placeholder heights, a header or none", async () => {
    const doc = join(root, 'ncei', 'oa', 'global-historical-climatology-network', 'hourly', 'doc');
    await mkdir(doc, { recursive: true });
    await writeFile(
      join(doc, 'ghcnh-station-list.csv'),
      [
        'GHCN_ID,LATITUDE,LONGITUDE,ELEVATION,STATE,NAME,GSN,(US)HCN_(US)CRN,WMO_ID,ICAO,ISO_CODE',
        'SFM00068816,-33.9648,18.6017,46.0,,CAPE TOWN INTL,GSN,,68816,FACT,ZA',
        'SFXLT000001,-33.9300,18.8600,9999.0,,STELLENBOSCH, ELSENBURG,,,,,ZA',
        'SFM00068828,-34.0056,22.3789,-999.9,,GEORGE,,,68828,FAGG,ZA',
        'SFXLT000002,,,,,NO POSITION,,,,,ZA',
      ].join('\n'),
    );
    const psvPath =
      'oa/global-historical-climatology-network/hourly/access/by-year/2024/psv/GHCNh_SFM00068816_2024.psv';
    await mkdir(join(root, 'ncei', ...psvPath.split('/').slice(0, -1)), { recursive: true });
    const rows = ['STATION|Station_name|DATE|LATITUDE|LONGITUDE|ELEVATION|temperature|temperature_Quality_Code'];
    for (let d = 1; d <= 30; d++)
      for (let hr = 0; hr < 24; hr++)
        rows.push(
          `SFM00068816|CAPE TOWN INTL|2024-06-${String(d).padStart(2, '0')}T${String(hr).padStart(2, '0')}:00:00|-33.9648|18.6017|46.0|${(10 + ((d * 7 + hr) % 9) / 2).toFixed(1)}|`,
        );
    await writeFile(join(root, 'ncei', ...psvPath.split('/')), `${rows.join('\n')}\n`);
    mirror.reset();
    const r = await cli([
      'import',
      'ghcnh',
      ...['--near', '18.86,-33.93', '--radius', '50', '--years', '2024'],
      ...['--mirror', mirror.url, '--cache', join(root, 'cache-ghcnh'), '--out', join(root, 'near-ghcnh')],
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /2 ghcnh station\(s\) within 50 km of 18\.86,-33\.93:\n {2}SFXLT000001 {2}STELLENBOSCH, ELSENBURG {2}0\.0 km\n {2}SFM00068816 {2}CAPE TOWN INTL {2}2\d\.\d km\n/,
    );
    expect(r.stderr).toMatch(/NCEI has no ghcnh file for: SFXLT000001 2024\./);
    expect(mirror.log.some((e) => e.path.includes('SFM00068828'))).toBe(false);
    const got = await nearestAnswer(
      join(root, 'near-ghcnh'),
      18.6017,
      -33.9648,
      ['temperature_mean'],
      'daily',
      '2024-06-02',
      '2024-06-29',
    );
    expect(Object.keys(got.data)).toHaveLength(28);
    expect(Object.values(got.data).every((d) => typeof d.temperature_mean === 'number')).toBe(true);
  });

  it('without a host: one sentence, exit 1, and the cache kept', async () => {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const port = (s.address() as { port: number }).port;
    await new Promise<void>((r) => s.close(() => r()));
    const cache = join(root, 'cache');
    const before = (await stat(join(cache, ...path(2022).split('/')))).size;
    const r = await cli([
      'import',
      'gsod',
      ...['--station', STATION.id, '--years', '2021'],
      ...['--mirror', `http://127.0.0.1:${port}/`, '--cache', cache, '--out', join(root, 'none')],
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Could not download from 127\.0\.0\.1:\d+ .*is this machine online\?/);
    expect((await stat(join(cache, ...path(2022).split('/')))).size).toBe(before);
  });

  it('refuses a station id that is not one, before any request', async () => {
    mirror.reset();
    const r = await cli([
      'import',
      'gsod',
      ...['--station', '../../etc/passwd', '--years', '2024'],
      ...['--mirror', mirror.url, '--cache', join(root, 'cache'), '--out', join(root, 'x')],
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/is not a gsod station id, e\.g\. 68816099999/);
    expect(mirror.requests).toBe(0);
  });
});

describe('a host that gets a download wrong', () => {
  it('a part of an older version of the file is fetched whole again; a part of the same version goes on (If-Range)', async () => {
    const dir = join(root, 'versions');
    const file = join(dir, 'ncei', ...path(2024).split('/'));
    await mkdir(join(file, '..'), { recursive: true });
    await writeFile(file, gsodYear(2024));
    const host = await startRangeServer(join(dir, 'ncei'), { versions: true });
    try {
      const etag = (await fetch(new URL(path(2024), host.url), { method: 'HEAD' })).headers.get('ETag')!;
      expect(etag).toMatch(/^"/);
      host.reset();
      const cache = join(dir, 'cache');
      const cached = join(cache, ...path(2024).split('/'));
      await mkdir(join(cached, '..'), { recursive: true });
      // An earlier run was cut while NCEI held another version of the file (its first 1000 bytes differ).
      const older = Buffer.from(gsodYear(2024).replace(/"CAPE TOWN/g, '"KAAPSTAD '));
      await writeFile(`${cached}.part`, older.subarray(0, 1000));
      await writeFile(`${cached}.part.version`, '"an-older-version"');
      const got = await downloadArchive({
        format: 'gsod',
        stations: [STATION.id],
        years: [2024, 2024],
        root: host.url,
        cache,
      });
      expect(host.log.map((e) => [e.range, e.status])).toEqual([['bytes=1000-', 200]]);
      expect(await readFile(got.files[0]!)).toEqual(await readFile(file));

      // Cut again, this time within the version the host still has: it goes on from the cut.
      await rm(cached);
      await writeFile(`${cached}.part`, (await readFile(file)).subarray(0, 1000));
      await writeFile(`${cached}.part.version`, etag);
      host.reset();
      await downloadArchive({ format: 'gsod', stations: [STATION.id], years: [2024, 2024], root: host.url, cache });
      expect(host.log.map((e) => [e.range, e.status])).toEqual([['bytes=1000-', 206]]);
      expect(await readFile(cached)).toEqual(await readFile(file));
      await expect(stat(`${cached}.part.version`)).rejects.toThrow();
    } finally {
      await host.close();
    }
  });

  it('a redirect to another host is refused, and nothing from it is kept', async () => {
    const elsewhere = await startRangeServer(join(root, 'ncei'));
    const redirecting = createHttpServer((req, res) => {
      res.writeHead(302, { Location: new URL(req.url!.slice(1), elsewhere.url).href }).end();
    });
    await new Promise<void>((r) => redirecting.listen(0, '127.0.0.1', r));
    const port = (redirecting.address() as { port: number }).port;
    try {
      const cache = join(root, 'redirected');
      const r = await cli([
        'import',
        'gsod',
        ...['--station', STATION.id, '--years', '2024'],
        ...['--mirror', `http://127.0.0.1:${port}/`, '--cache', cache, '--out', join(root, 'redirected-out')],
      ]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(
        `redirected to ${new URL(elsewhere.url).origin}; files are downloaded from http://127.0.0.1:${port} only.`,
      );
      await expect(stat(join(cache, ...path(2024).split('/')))).rejects.toThrow();
    } finally {
      await new Promise<void>((r) => redirecting.close(() => r()));
      await elsewhere.close();
    }
  });

  it('a transfer that stops sending is cut after the idle time, tried again, and said', async () => {
    let asked = 0;
    const stalls = createHttpServer((_req, res) => {
      asked++;
      res.writeHead(200, { 'Content-Length': '5000' });
      res.write('x'.repeat(100));
      // …and nothing more.
    });
    await new Promise<void>((r) => stalls.listen(0, '127.0.0.1', r));
    const port = (stalls.address() as { port: number }).port;
    const t0 = Date.now();
    try {
      await expect(
        downloadArchive({
          format: 'gsod',
          stations: [STATION.id],
          years: [2024, 2024],
          root: `http://127.0.0.1:${port}/`,
          cache: join(root, 'stalled'),
          idleMs: 300,
        }),
      ).rejects.toThrow(/Could not download from 127\.0\.0\.1:\d+ \(no byte for 0\.3 s\)/);
      expect(asked).toBe(3);
      expect(Date.now() - t0).toBeLessThan(30_000);
    } finally {
      stalls.closeAllConnections();
      await new Promise<void>((r) => stalls.close(() => r()));
    }
  });
});
