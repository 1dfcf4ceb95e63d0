// The words a saved answer is listed under, against values worked out by hand.
import { describe, expect, it } from 'vitest';
import { geometriesLabel, requestSummary, savedTimeLabel } from '../../src/ui/saved-summary.ts';

describe('saved answer labels', () => {
  it('names geometries as the side panel does', () => {
    expect(geometriesLabel([{ id: 'a', kind: 'point', coordinates: [18.87, -33.93] }])).toBe(
      'G1 point -33.9300, 18.8700',
    );
    expect(
      geometriesLabel([
        { id: 'a', kind: 'point', coordinates: [18, -33] },
        { id: 'b', kind: 'point', coordinates: [19, -34] },
      ]),
    ).toBe('G1–G2: 2 points');
    // 0.01° × 0.01° at the equator on WGS84: 1113.19 m × 1105.74 m ≈ 1.2309 km².
    const square: Array<[number, number]> = [
      [0, 0],
      [0.01, 0],
      [0.01, 0.01],
      [0, 0.01],
      [0, 0],
    ];
    expect(geometriesLabel([{ id: 'f', kind: 'polygon', coordinates: [square] }])).toBe('G1 field of 1.231 km²');
    // A tenth of that side: 0.0123 km² = 1.23 ha.
    const small: Array<[number, number]> = [
      [0, 0],
      [0.001, 0],
      [0.001, 0.001],
      [0, 0.001],
      [0, 0],
    ];
    expect(geometriesLabel([{ id: 'f', kind: 'polygon', coordinates: [small] }])).toBe('G1 field of 1.23 ha');
    // A shape's own name is how a grower finds the answer again.
    expect(geometriesLabel([{ id: 'f', kind: 'polygon', coordinates: [small], name: 'Block 7' }])).toBe(
      'G1 (Block 7) field of 1.23 ha',
    );
  });

  it('says what was asked in one line', () => {
    expect(
      requestSummary('poly-aggregate', {
        dataTypes: ['rain_sum'],
        options: { timeScale: 'monthly' },
        startDate: '2024-01',
        endDate: '2024-12',
      }),
    ).toBe('Station records (stations in the field), monthly: Rainfall, monthly total; 2024-01 to 2024-12');
    expect(
      requestSummary('polygon', {
        dataType: 'chill',
        options: { subDataType: 'ucu', timeScale: 'annual', aggregationMethod: 'max' },
        startDate: '2019',
        endDate: '2024',
      }),
    ).toBe('Layer chill, Utah chill units (UCU) (annual), max over the field; 2019 to 2024');
    expect(requestSummary('point', { dataType: 'windspeed', options: { subDataType: '100' } })).toBe(
      'Layer windspeed, 100 m above ground',
    );
    // With the catalog's words for the layer.
    expect(
      requestSummary(
        'point',
        {
          dataType: 'gdd',
          options: { subDataType: 'grapes', timeScale: 'annual' },
          startDate: '2024',
          endDate: '2024',
        },
        (d, s) => `Growing degree days (${d}/${s})`,
      ),
    ).toBe('Growing degree days (gdd/grapes) (annual); 2024 to 2024');
    expect(
      requestSummary('nearest-station', {
        dataTypes: ['temperature_max'],
        options: { timeScale: 'hourly' },
        startDate: '2024-06-01T00:00:00',
        endDate: '2024-06-07T23:00:00',
      }),
    ).toBe(
      'Station records (nearest station), hourly: Air temperature, hourly maximum; 2024-06-01 00:00 to 2024-06-07 23:00',
    );
  });

  it('writes a saved time as year-month-day hours:minutes on the device clock', () => {
    const d = new Date(2026, 10, 23, 9, 5);
    expect(savedTimeLabel(d.toISOString())).toBe('2026-11-23 09:05');
  });
});
