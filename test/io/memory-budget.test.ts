/**
 * One memory budget over every cache of an engine: the least recently used
 * entry goes first whichever cache holds it, an entry being added is never
 * the one given up, and a cache closed gives its bytes back.
 */
import { describe, expect, it } from 'vitest';
import { Lru } from '../../src/io/lru.ts';
import { MemoryBudget } from '../../src/io/memory-budget.ts';
import { RangeCache } from '../../src/io/range-cache.ts';
import type { ByteSource } from '../../src/io/byte-source.ts';

/** A file of `size` bytes whose byte i is i % 251, counting the reads it answers. */
const file = (size: number) => {
  const reads: Array<[number, number]> = [];
  const source: ByteSource = {
    url: 'mem://file',
    async read(offset, length) {
      reads.push([offset, length]);
      return Uint8Array.from({ length: Math.max(0, Math.min(length, size - offset)) }, (_, i) => (offset + i) % 251);
    },
  };
  return { source, reads };
};

describe('MemoryBudget', () => {
  it('drops the least recently used entry across caches once their sum passes the bound', () => {
    const budget = new MemoryBudget(100);
    const a = new Lru<string, string>(1000, undefined, budget);
    const b = new Lru<string, string>(1000, undefined, budget);
    a.set('a1', 'x', 40);
    b.set('b1', 'x', 40);
    expect(budget.bytes).toBe(80);
    a.set('a2', 'x', 40);
    expect([a.has('a1'), b.has('b1'), a.has('a2')]).toEqual([false, true, true]);
    expect(budget.bytes).toBe(80);
    // A use makes an entry recent again: b1 is now older than a2.
    a.get('a2');
    b.set('b2', 'x', 40);
    expect([b.has('b1'), a.has('a2'), b.has('b2')]).toEqual([false, true, true]);
    a.get('a2');
    b.get('b2');
    b.set('b3', 'x', 30);
    // a2 was used before b2: it goes.
    expect([a.has('a2'), b.has('b2'), b.has('b3')]).toEqual([false, true, true]);
    expect(budget.bytes).toBe(70);
  });

  it('never gives up the entry being added, even one larger than the whole budget', () => {
    const budget = new MemoryBudget(100);
    const a = new Lru<string, string>(1000, undefined, budget);
    const b = new Lru<string, string>(1000, undefined, budget);
    a.set('a1', 'x', 50);
    b.set('big', 'x', 500);
    expect([a.has('a1'), b.has('big')]).toEqual([false, true]);
    expect(budget.bytes).toBe(500);
    b.delete('big');
    expect(budget.bytes).toBe(0);
  });

  it('counts each cache’s own evictions, clears and closes', () => {
    const budget = new MemoryBudget(1000);
    const a = new Lru<string, string>(100, undefined, budget);
    for (let i = 0; i < 10; i++) a.set(`k${i}`, 'x', 30);
    // Its own bound keeps 3 × 30.
    expect([a.size, budget.bytes]).toEqual([3, 90]);
    a.clear();
    expect(budget.bytes).toBe(0);
    a.set('again', 'x', 10);
    a.close();
    expect(budget.bytes).toBe(0);
  });

  it('station file ranges and other caches give way to each other, and answers stay exact', async () => {
    const budget = new MemoryBudget(10_000);
    const { source, reads } = file(100_000);
    const ranges = new RangeCache(source, 100_000, 1_000_000, budget);
    const blocks = new Lru<number, Uint8Array>(1_000_000, undefined, budget);
    const first = new Uint8Array(await ranges.slice(0, 6000));
    expect(budget.bytes).toBe(6000);
    blocks.set(1, new Uint8Array(6000), 6000);
    // The range was the least recently used: it went; the next slice of it is read again, exactly.
    expect(budget.bytes).toBe(6000);
    const again = new Uint8Array(await ranges.slice(100, 200));
    expect(reads).toHaveLength(2);
    expect([...again]).toEqual([...first.subarray(100, 200)]);
    expect(blocks.has(1)).toBe(true);
    expect(budget.bytes).toBe(6100);
    // Now the block is the oldest: a large range pushes it out.
    await ranges.slice(10_000, 15_000);
    expect(blocks.has(1)).toBe(false);
    expect(budget.bytes).toBe(5100);
    await ranges.close();
    expect(budget.bytes).toBe(0);
  });
});
