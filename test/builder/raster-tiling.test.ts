import { describe, expect, it } from 'vitest';
import { chooseTileSize, MAX_BUILT_TILE_BYTES, TILE_EDGES } from '../../src/builder/raster-tiling.ts';

describe('chooseTileSize', () => {
  it('gives long daily stacks 16 px tiles and short stacks and undated layers 32 px', () => {
    expect(chooseTileSize(366)).toBe(16);
    expect(chooseTileSize(365)).toBe(16);
    expect(chooseTileSize(12)).toBe(32);
    expect(chooseTileSize(6)).toBe(32);
    expect(chooseTileSize(1)).toBe(32);
  });

  it('picks the largest edge whose whole tile fits the bound, by brute force over band counts', () => {
    for (let bands = 1; bands <= 400; bands++) {
      const fits = TILE_EDGES.filter((e) => e * e * bands * 2 <= MAX_BUILT_TILE_BYTES);
      expect(chooseTileSize(bands)).toBe(fits.length ? Math.max(...fits) : Math.min(...TILE_EDGES));
      expect(chooseTileSize(bands) % 16).toBe(0);
    }
    // 32 bands of Int16 at 32 px is exactly 64 KiB: still 32; one more band tips it.
    expect(chooseTileSize(32)).toBe(32);
    expect(chooseTileSize(33)).toBe(16);
  });
});
