// `climate-query serve --static DIR` serves a built site as static hosts do:
// a folder answers its index.html, so the address it prints opens the app.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { startServer, type RunningServer } from '../../src/node/server.ts';

const fx = inject('stationFixture');
let dir: string;
let server: RunningServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cq-static-'));
  await mkdir(join(dir, 'docs'));
  await mkdir(join(dir, 'empty'));
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>app</title>');
  await writeFile(join(dir, 'docs/index.html'), '<!doctype html><title>docs</title>');
  server = await startServer({ engine: createNodeEngine(fx.dataset), port: 0, staticRoot: dir });
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('serve --static', () => {
  it('answers index.html at / and in folders, redirecting a folder without its slash', async () => {
    const root = await fetch(server.url);
    expect(root.status).toBe(200);
    expect(root.headers.get('content-type')).toMatch(/text\/html/);
    expect(await root.text()).toContain('<title>app</title>');
    expect(await (await fetch(`${server.url}docs/`)).text()).toContain('<title>docs</title>');
    const bare = await fetch(`${server.url}docs?x=1`, { redirect: 'manual' });
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/docs/?x=1');
    // A folder without index.html is not listed.
    expect((await fetch(`${server.url}empty/`)).status).toBe(404);
    expect((await fetch(`${server.url}empty`)).status).toBe(404);
  });
});
