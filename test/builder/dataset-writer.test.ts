/**
 * The dataset writer's moves, on real folders: a staged file or folder
 * replaces what is in place whole, a copy leaves its source, and a swap
 * that cannot put the new folder in leaves the old one where it was.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { placeInto, writeFileAtomic } from '../../src/builder/dataset/dataset-writer.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cq-writer-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const folder = async (path: string, files: Record<string, string>) => {
  await mkdir(path, { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(path, name), text);
};
const contents = async (path: string) => {
  const names = (await readdir(path)).sort();
  return Object.fromEntries(await Promise.all(names.map(async (n) => [n, await readFile(join(path, n), 'utf8')])));
};

describe('the dataset writer', () => {
  it('places a file over a file, and a folder over a non-empty folder, leaving nothing beside them', async () => {
    await writeFile(join(dir, 'a.txt'), 'old');
    await writeFile(join(dir, 'staged.txt'), 'new');
    await placeInto(join(dir, 'staged.txt'), join(dir, 'a.txt'));
    expect(await readFile(join(dir, 'a.txt'), 'utf8')).toBe('new');
    await folder(join(dir, 'store'), { x: '1', y: '2' });
    await folder(join(dir, 'staging'), { z: '3' });
    await placeInto(join(dir, 'staging'), join(dir, 'store'));
    expect(await contents(join(dir, 'store'))).toEqual({ z: '3' });
    expect((await readdir(dir)).sort()).toEqual(['a.txt', 'store']);
  });

  it('copies when asked, leaving the source, and makes the target folder', async () => {
    await folder(join(dir, 'from'), { f: 'kept' });
    await placeInto(join(dir, 'from'), join(dir, 'deep', 'er', 'to'), { copy: true });
    expect(await contents(join(dir, 'deep', 'er', 'to'))).toEqual({ f: 'kept' });
    expect(await contents(join(dir, 'from'))).toEqual({ f: 'kept' });
  });

  it('writes a file by temp file + rename, leaving no temp file', async () => {
    await writeFileAtomic(join(dir, 'catalog.json'), '{"a":1}\n');
    await writeFileAtomic(join(dir, 'catalog.json'), '{"a":2}\n');
    expect(await readFile(join(dir, 'catalog.json'), 'utf8')).toBe('{"a":2}\n');
    expect(await readdir(dir)).toEqual(['catalog.json']);
  });
});
