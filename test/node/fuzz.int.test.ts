// Fuzz: seeded mutations of valid requests, 2,000 per endpoint
// through the engine's router on the real demo dataset, and a sample of
// them through a real `serve` process. Every answer must be 200 or a
// documented 4xx JSON error; never a 5xx, never a crash.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ENDPOINTS } from '../../src/contract/types.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import type { ClimateEngine } from '../../src/engine/engine.ts';
import { fuzzer, unexpected } from '../helpers/fuzz-requests.ts';
import { startServeProcess } from '../helpers/serve-process.ts';

const demo = inject('demoDataset');
const PER_ENDPOINT = 2_000;
const SERVE_SAMPLE = 150;

describe('fuzzed requests through the engine router', () => {
  let engine: ClimateEngine;
  beforeAll(() => {
    engine = createNodeEngine(demo);
  });
  afterAll(async () => {
    await engine.close();
  });

  it.each(ENDPOINTS)(
    `${PER_ENDPOINT} mutated /api/%s/ requests: only 200 or documented 4xx`,
    async (endpoint) => {
      const next = fuzzer(11_000 + ENDPOINTS.indexOf(endpoint));
      const bad: string[] = [];
      const statuses = new Map<number, number>();
      for (let i = 0; i < PER_ENDPOINT; i++) {
        const body = next(endpoint);
        const answer = await engine.handle({ method: 'POST', path: `/api/${endpoint}/`, body });
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        const why = unexpected(answer.status, answer.body);
        if (why) bad.push(`#${i} ${why}: ${JSON.stringify(answer.body).slice(0, 300)} for ${body.slice(0, 200)}`);
      }
      console.log(
        `fuzz ${endpoint}: ${PER_ENDPOINT} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
      );
      expect(bad).toEqual([]);
      // The mutations must reach past validation sometimes, or they test nothing but the first check.
      expect(statuses.get(200) ?? 0).toBeGreaterThan(20);
      expect([...statuses.keys()].some((s) => s >= 500)).toBe(false);
    },
    600_000,
  );
});

describe('fuzzed requests through a real serve process', () => {
  it(`${SERVE_SAMPLE} per endpoint over loopback: only 200 or documented 4xx JSON, with nosniff`, async () => {
    const { child, url } = await startServeProcess(demo);
    try {
      const bad: string[] = [];
      let n = 0;
      for (const endpoint of ENDPOINTS) {
        const next = fuzzer(22_000 + ENDPOINTS.indexOf(endpoint));
        for (let i = 0; i < SERVE_SAMPLE; i++) {
          const body = next(endpoint);
          const res = await fetch(new URL(`api/${endpoint}/`, url), { method: 'POST', body });
          const text = await res.text();
          n++;
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            bad.push(`${endpoint} #${i}: status ${res.status}, not JSON: ${text.slice(0, 100)}`);
            continue;
          }
          const why = unexpected(res.status, json);
          if (why) bad.push(`${endpoint} #${i} ${why}: ${text.slice(0, 300)}`);
          if (res.headers.get('content-type') !== 'application/json')
            bad.push(`${endpoint} #${i}: content-type ${res.headers.get('content-type')}`);
          if (res.headers.get('x-content-type-options') !== 'nosniff') bad.push(`${endpoint} #${i}: no nosniff`);
        }
      }
      expect(bad).toEqual([]);
      expect(n).toBe(SERVE_SAMPLE * ENDPOINTS.length);
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill('SIGTERM');
    }
  }, 600_000);
});
