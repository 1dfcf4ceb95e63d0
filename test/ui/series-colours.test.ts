/** Chart colours a grower reads without the legend: the lowest blue, the highest red; places kept apart. */
import { describe, expect, it } from 'vitest';
import { seriesColours } from '../../src/ui/series-format.ts';

const BLUE = '#1d5f8a';
const RED = '#c62828';

describe('series colours', () => {
  it('one place: minimum blue, maximum red, mean grey, rain teal, whatever their order', () => {
    const c = seriesColours([
      { label: 'G1 temperature_max', title: 'G1 Air temperature, daily maximum' },
      { label: 'G1 rain_sum', title: 'G1 Rainfall, daily total' },
      { label: 'G1 temperature_min', title: 'G1 Air temperature, daily minimum' },
      { label: 'G1 temperature_mean', title: 'G1 Air temperature, daily mean' },
    ]);
    expect(c).toEqual([RED, '#00838f', BLUE, '#455a64']);
    // Layers name variants the same way.
    expect(seriesColours([{ label: 'G1 temp min' }, { label: 'G1 temp max' }])).toEqual([BLUE, RED]);
  });

  it('several places: by position, all different', () => {
    const c = seriesColours([
      { label: 'G1 temperature_max' },
      { label: 'G2 temperature_max' },
      { label: 'G3 temperature_max' },
    ]);
    expect(new Set(c).size).toBe(3);
  });

  it('two series of one meaning: the second gets another colour', () => {
    const c = seriesColours([{ label: 'G1 temperature_min' }, { label: 'G1 humidity_min' }, { label: 'G1 et0' }]);
    expect(c[0]).toBe(BLUE);
    expect(new Set(c).size).toBe(3);
  });
});
