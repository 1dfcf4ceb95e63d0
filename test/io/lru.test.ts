// The one LRU the readers' caches share: eviction order by recency, weights,
// the entry just set is never the one dropped, and a late failure cannot
// drop a newer entry of the same key. Checked against a brute-force model.
import { describe, expect, it } from 'vitest';
import { Lru } from '../../src/io/lru.ts';
import { mulberry32 } from '../../src/builder/prng.ts';

describe('Lru', () => {
  it('drops the least recently used past its weight, calling onEvict', () => {
    const evicted: string[] = [];
    const lru = new Lru<string, number>(10, (k) => evicted.push(k));
    lru.set('a', 1, 4);
    lru.set('b', 2, 4);
    expect(lru.get('a')).toBe(1); // a is now newer than b
    lru.set('c', 3, 4);
    expect(evicted).toEqual(['b']);
    expect([lru.has('a'), lru.has('b'), lru.has('c')]).toEqual([true, false, true]);
    // An entry heavier than the bound is still held (once), everything older goes.
    lru.set('big', 4, 50);
    expect(evicted).toEqual(['b', 'a', 'c']);
    expect(lru.get('big')).toBe(4);
  });

  it('delete with a value drops only that value', () => {
    const lru = new Lru<string, object>(5);
    const old = {};
    const fresh = {};
    lru.set('k', old);
    lru.set('k', fresh);
    expect(lru.delete('k', old)).toBe(false);
    expect(lru.get('k')).toBe(fresh);
    expect(lru.delete('k', fresh)).toBe(true);
    expect(lru.size).toBe(0);
  });

  it('agrees with a brute-force model on 5,000 random operations', () => {
    const r = mulberry32(5);
    const lru = new Lru<number, number>(40);
    let model: Array<{ k: number; v: number; w: number }> = [];
    for (let i = 0; i < 5000; i++) {
      const k = Math.floor(r() * 20);
      if (r() < 0.5) {
        const w = 1 + Math.floor(r() * 10);
        lru.set(k, i, w);
        model = model.filter((e) => e.k !== k);
        model.push({ k, v: i, w });
        let total = model.reduce((s, e) => s + e.w, 0);
        while (total > 40 && model.length > 1) total -= model.shift()!.w;
      } else {
        const at = model.findIndex((e) => e.k === k);
        const want = at < 0 ? undefined : model[at]!.v;
        if (at >= 0) model.push(...model.splice(at, 1));
        expect(lru.get(k)).toBe(want);
      }
      expect(lru.values()).toEqual(model.map((e) => e.v));
    }
  });
});
