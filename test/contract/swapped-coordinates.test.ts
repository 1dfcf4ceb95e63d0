/**
 * Latitude written first: an item outside every extent the query reads that lies inside one
 * swapped is refused, naming the swapped text; anything else passes (points inside, points
 * outside either way, extents on 0…360).
 */
import { describe, expect, it } from 'vitest';
import type { ClimateQueryError } from '../../src/contract/errors.ts';
import { type Extent, extentOf, refuseSwapped } from '../../src/contract/swapped-coordinates.ts';
import { parseWkts } from '../../src/contract/wkt.ts';

const WC: Extent = [17.7, -34.9, 24.25, -30.4];
const refused = (wkts: string, extents: readonly Extent[] = [WC]) => {
  try {
    refuseSwapped(parseWkts(wkts, wkts.startsWith('POINT') ? 'point' : 'polygon', 1, 10), extents, 'the layer');
    return null;
  } catch (e) {
    return e as ClimateQueryError;
  }
};

describe('coordinates written latitude first', () => {
  it('refuses a point that lies inside only when swapped, naming the item and the swapped text', () => {
    const e = refused('POINT (19 -33); POINT (-33.275 19.025)');
    expect(e?.code).toBe('invalid_wkt');
    expect(e?.field).toBe('/wkts/1');
    expect(e?.params).toEqual({ index: 1, reason: 'swapped', swapped: 'POINT (19.025 -33.275)' });
  });

  it('refuses a field that lies inside only when swapped', () => {
    const e = refused('POLYGON ((-33.3 19.0, -33.3 19.01, -33.29 19.01, -33.29 19.0, -33.3 19.0))');
    expect(e?.params).toMatchObject({ index: 0, reason: 'swapped' });
  });

  it('lets through points inside, and points outside that are outside swapped too', () => {
    expect(refused('POINT (19 -33)')).toBeNull();
    expect(refused('POINT (28.04 -26.2)')).toBeNull(); // Johannesburg: outside the Western Cape either way
    expect(refused('POINT (0 0)')).toBeNull();
    expect(refused('POINT (-33.275 19.025)', [])).toBeNull();
  });

  it('reads extents on 0…360: a western point inside such a grid is inside', () => {
    expect(refused('POINT (-20 10)', [[-0.125, -90.125, 359.875, 90.125]])).toBeNull();
  });

  it('grows the stations’ extent by the margin', () => {
    const x = extentOf(
      [
        { lon: 18.6, lat: -33.97 },
        { lon: 22.38, lat: -34 },
      ],
      1,
    )!;
    [17.6, -35, 23.38, -32.97].forEach((v, i) => expect(x[i]).toBeCloseTo(v, 9));
    expect(extentOf([], 1)).toBeNull();
  });
});
