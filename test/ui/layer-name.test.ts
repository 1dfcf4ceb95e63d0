// A layer's name in the list: description and unit, the unit once even when
// the build's default description already carries it ("et0 (mm)").
import { describe, expect, it } from 'vitest';
import { layerName } from '../../src/ui/words.ts';
import { seriesHeading } from '../../src/ui/series-format.ts';

describe('layerName', () => {
  it('adds the unit to a description without it, and not to one that ends with it', () => {
    expect(layerName({ description: 'Winter chill per season', unit: 'chill units' })).toBe(
      'Winter chill per season (chill units)',
    );
    expect(layerName({ description: 'et0 (mm)', unit: 'mm' })).toBe('et0 (mm)');
    expect(layerName({ description: 'Elevation', unit: '' })).toBe('Elevation');
    expect(layerName({ description: 'Rain (mm) per day', unit: 'mm' })).toBe('Rain (mm) per day (mm)');
  });
});

describe('seriesHeading', () => {
  it('says the unit once', () => {
    expect(seriesHeading({ label: 'G1 et0', title: 'G1 et0 (mm)', unit: 'mm' })).toBe('G1 et0 (mm)');
    expect(seriesHeading({ label: 'G1 rain_sum', title: 'G1 Rainfall, daily total', unit: 'mm' })).toBe(
      'G1 Rainfall, daily total (mm)',
    );
    expect(seriesHeading({ label: 'G1 x', unit: '' })).toBe('G1 x');
  });
});
