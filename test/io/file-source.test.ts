// Local files as a byte source: a closed source never opens its file again, and a file of
// another size than the dataset records is refused, not read.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFileSource } from '../../src/io/file-source.ts';

describe('file byte source', () => {
  it('after close(), a waiting read fails as aborted instead of opening a handle nobody will close', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cq-fs-'));
    const path = join(dir, 'f.bin');
    await writeFile(path, Buffer.from([1, 2, 3, 4, 5]));
    try {
      const src = createFileSource(path, { bytes: 5 });
      expect([...(await src.read(1, 3))]).toEqual([2, 3, 4]);
      await src.close!();
      await expect(src.read(0, 2)).rejects.toMatchObject({
        code: 'aborted',
        message: expect.stringContaining('was closed'),
      });
      // Another size than the dataset records: dataset_changed, with what to do.
      const other = createFileSource(path, { bytes: 9 });
      await expect(other.read(0, 2)).rejects.toMatchObject({
        code: 'dataset_changed',
        message: expect.stringContaining('has 5 bytes where the dataset records 9'),
      });
      await other.close!();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
