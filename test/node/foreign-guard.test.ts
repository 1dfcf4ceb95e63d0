/**
 * What a Node engine may fetch of a source a catalog names by URL (src/node/foreign-guard.ts):
 * internal addresses are told apart by their blocks, an allowed origin is an origin only, and a
 * refused fetch makes no request.
 */
import { describe, expect, it } from 'vitest';
import { guardedFetch, isInternalAddress, parseAllowedOrigin } from '../../src/node/foreign-guard.ts';

describe('the foreign-source guard', () => {
  it('tells internal addresses from public ones', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::127.0.0.1',
      '64:ff9b:1::a9fe:a9fe',
      'fec0::1',
      '::ffff:169.254.169.254',
      'not-an-ip',
    ])
      expect(isInternalAddress(a), a).toBe(true);
    for (const a of ['8.8.8.8', '196.21.0.1', '172.32.0.1', '2001:4860:4860::8888', '::ffff:8.8.8.8'])
      expect(isInternalAddress(a), a).toBe(false);
  });

  it('takes an origin, and only an origin', () => {
    expect(parseAllowedOrigin('https://data.example.org')).toBe('https://data.example.org');
    expect(parseAllowedOrigin('https://data.example.org/')).toBe('https://data.example.org');
    expect(parseAllowedOrigin('http://10.0.0.5:9000')).toBe('http://10.0.0.5:9000');
    for (const o of [
      'data.example.org',
      'https://data.example.org/stores',
      'ftp://x.org',
      'https://u:p@x.org',
      'https://x.org?a=1',
    ])
      expect(() => parseAllowedOrigin(o), o).toThrow(/is not an origin/);
  });

  it('refuses an origin not allowed before any request is made', async () => {
    let asked = 0;
    const counting = (async () => {
      asked++;
      return new Response('x');
    }) as typeof fetch;
    const f = guardedFetch(new Set(['https://data.example.org']), counting);
    await expect(f('https://elsewhere.example.org/a.zarr/.zmetadata')).rejects.toThrow(
      /not one this engine was allowed/,
    );
    await expect(f('http://data.example.org/a.zarr/.zmetadata')).rejects.toThrow(/not one this engine was allowed/);
    expect(asked).toBe(0);
  });

  it('checks each redirect as the first request', async () => {
    const answers: Array<Response> = [];
    const fake = (async (url: URL | string) => {
      answers.push(
        new Response(null, { status: 302, headers: { Location: 'http://169.254.169.254/latest/meta-data' } }),
      );
      return String(url).startsWith('http://10.0.0.5:9000/') ? answers.at(-1)! : new Response('no');
    }) as typeof fetch;
    const f = guardedFetch(new Set(['http://10.0.0.5:9000']), fake);
    await expect(f('http://10.0.0.5:9000/a.zarr/tas/0.0.0')).rejects.toThrow(
      /169\.254\.169\.254 is not one this engine was allowed/,
    );
    expect(answers).toHaveLength(1);
  });
});
