// The query form's option lists (src/ui/form-options.ts) come from the
// contract's descriptions of time scales, station data types and
// aggregation methods: the lists index.html used to hold, in the same order
// and words, and nothing the contract does not name.
import { describe, expect, it } from 'vitest';
import { aggregationOptions, stationTypeOptions, timeScaleOptions } from '../../src/ui/form-options.ts';
import { AGGREGATION_METHODS } from '../../src/contract/raster-layers.ts';
import { STATION_TIME_SCALES, STATION_TYPES } from '../../src/contract/station-data-types.ts';

describe('form options', () => {
  it('time scales: the station scales, finest first, named as the form always named them', () => {
    expect(timeScaleOptions()).toEqual([
      { value: 'hourly', label: 'hourly' },
      { value: 'daily', label: 'daily' },
      { value: 'dekadal', label: 'dekadal' },
      { value: 'monthly', label: 'monthly' },
    ]);
    expect(timeScaleOptions().map((o) => o.value)).toEqual([...STATION_TIME_SCALES]);
  });

  it('station types: every type of the scale in contract order, by plain name and unit, titled with the contract name', () => {
    for (const scale of STATION_TIME_SCALES) {
      const options = stationTypeOptions(scale);
      expect(options.map((o) => o.value)).toEqual([...STATION_TYPES[scale]]);
      for (const o of options) {
        expect(o.title).toBe(o.value);
        expect(o.label).toMatch(/^[A-Z][^_]* \(.+\)$/);
      }
    }
    expect(stationTypeOptions('daily').find((o) => o.value === 'temperature_max')).toEqual({
      value: 'temperature_max',
      label: 'Air temperature, daily maximum (°C)',
      title: 'temperature_max',
    });
    // The same name reads differently per scale.
    expect(stationTypeOptions('monthly').find((o) => o.value === 'rain_sum')?.label).toBe(
      'Rainfall, monthly total (mm)',
    );
    expect(stationTypeOptions('hourly').find((o) => o.value === 'solar_radation')?.label).toBe(
      'Solar radiation, hourly mean (W/m²)',
    );
  });

  it('station types: only those the dataset holds, still in contract order; none when it holds none', () => {
    const held = ['humidity', 'rain', 'not_a_type', 'dew_point'];
    expect(stationTypeOptions('hourly', held).map((o) => o.value)).toEqual(['rain', 'dew_point', 'humidity']);
    expect(stationTypeOptions('daily', held)).toEqual([]);
    expect(stationTypeOptions('daily', [])).toEqual([]);
  });

  it('aggregations: mean first (the form preselects it), then min and max; exactly the contract methods', () => {
    expect(aggregationOptions()).toEqual([
      { value: 'mean', label: 'mean' },
      { value: 'min', label: 'min' },
      { value: 'max', label: 'max' },
    ]);
    expect(
      aggregationOptions()
        .map((o) => o.value)
        .sort(),
    ).toEqual([...AGGREGATION_METHODS].sort());
  });
});
