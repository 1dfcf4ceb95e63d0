// `climate-query serve` as a user runs it: a real process, loopback, Range
// requests on the dataset, the four POST routes, clean stop on SIGTERM.
import { describe, expect, inject, it } from 'vitest';
import { startServeProcess } from '../helpers/serve-process.ts';

const fx = inject('stationFixture');

describe('climate-query serve', () => {
  it('serves the API and the dataset files with Range, and stops cleanly on SIGTERM', async () => {
    const { child, url, stderr } = await startServeProcess(fx.dataset);
    const range = await fetch(new URL('stations/index.parquet', url), { headers: { Range: 'bytes=0-99' } });
    expect(range.status).toBe(206);
    expect(range.headers.get('content-range')).toMatch(/^bytes 0-99\/\d+$/);
    expect((await range.arrayBuffer()).byteLength).toBe(100);
    const head = await fetch(new URL('catalog.json', url), { method: 'HEAD' });
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(1000);
    const bad = await fetch(new URL('stations/index.parquet', url), { headers: { Range: 'bytes=999999999-' } });
    expect(bad.status).toBe(416);
    const res = await fetch(new URL('api/nearest-station/', url), {
      method: 'POST',
      body: JSON.stringify({
        wkts: 'POINT (19 -33.9)',
        dataTypes: ['rain_sum'],
        options: { timeScale: 'daily' },
        startDate: '2024-01-01',
        endDate: '2024-01-02',
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(Object.keys((await res.json())['POINT (19 -33.9)'].data)).toEqual(['2024-01-01', '2024-01-02']);
    expect((await fetch(new URL('api/point/', url))).status).toBe(405);
    const code = await new Promise<number | null>((resolve) => {
      child.on('exit', (c) => resolve(c));
      child.kill('SIGTERM');
    });
    expect(code).toBe(0);
    expect(stderr()).toContain('stopped');
  });
});
