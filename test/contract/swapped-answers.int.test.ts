/**
 * Latitude written first, through the engine on the demo dataset: each endpoint refuses the
 * swapped point (or field) with 400 `invalid_wkt`, reason `swapped`, instead of nulls or a station
 * thousands of kilometres away, and answers the same request written longitude first.
 */
import { afterAll, describe, expect, inject, it } from 'vitest';
import { REQUEST_EXAMPLES } from '../../src/engine/openapi.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';

const engine = createNodeEngine(inject('demoDataset'));
afterAll(() => engine.close());

const swap = (wkt: string) =>
  wkt.replace(/(-?\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?)/g, (_m, a: string, b: string) => `${b} ${a}`);

describe.each(['nearest-station', 'poly-aggregate', 'point', 'polygon'] as const)('%s', (endpoint) => {
  const example = Object.values(REQUEST_EXAMPLES[endpoint])[0]!.value as { wkts: string };

  it('answers the example, and refuses it with every pair swapped, naming the item', async () => {
    const right = await engine.handle({ method: 'POST', path: `/api/${endpoint}/`, body: JSON.stringify(example) });
    expect(right.status, JSON.stringify(right.body)).toBe(200);
    const first = example.wkts.split(';')[0]!;
    const swapped = { ...example, wkts: swap(first) };
    const res = await engine.handle({ method: 'POST', path: `/api/${endpoint}/`, body: JSON.stringify(swapped) });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    const { error } = res.body as { error: { code: string; field: string; params: Record<string, unknown> } };
    expect(error).toMatchObject({ code: 'invalid_wkt', field: '/wkts/0', params: { index: 0, reason: 'swapped' } });
    if (first.startsWith('POINT')) expect(error.params.swapped).toBe(first.replace(/\s+/g, ' '));
  });
});
