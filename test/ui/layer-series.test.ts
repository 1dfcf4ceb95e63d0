/**
 * A layer's series is drawn and written from the layer's own description, whatever its name: a
 * user's rainfall layer in mm is a total (bars from zero) at the digits its unit is read at, not
 * drawn as a temperature because its name is not one the contract knows.
 */
import { describe, expect, it } from 'vitest';
import { isTotal, layerDecimals, layerIsTotal } from '../../src/ui/series-format.ts';
import { toTable } from '../../src/ui/result-table.ts';

describe('a layer of the user’s own', () => {
  it('in mm, dekadal, named chirps: a total, at one decimal though stored at 0.001', () => {
    expect(layerIsTotal('mm', 'chirps', 'dekadal')).toBe(true);
    expect(layerDecimals(0.001, 'mm')).toBe(1);
  });

  it('in °C: a state, at its step up to one decimal', () => {
    expect(layerIsTotal('°C', 'tmax', 'daily')).toBe(false);
    expect(layerDecimals(0.01, '°C')).toBe(1);
    expect(layerDecimals(1, '°C')).toBe(0);
  });

  it('in a unit the app does not know: its step decides, and its name or time scale the kind', () => {
    expect(layerDecimals(0.01, 'NDVI')).toBe(2);
    expect(layerIsTotal('NDVI', 'ndvi', 'daily')).toBe(false);
    expect(layerIsTotal('index', 'x', 'annual')).toBe(true);
  });

  it('the table of a point answer carries it, so chart, table and CSV agree', () => {
    const layers = [
      {
        dataType: 'chirps',
        subDataType: '-',
        unit: 'mm',
        timeScale: 'dekadal',
        description: 'CHIRPS rainfall',
        scale: 0.001,
        extent: 'wc',
      },
    ];
    const t = toTable(
      'point',
      { wkts: 'POINT (19 -33)', dataType: 'chirps', options: { timeScale: 'dekadal', dataExtent: 'wc' } },
      { 'POINT (19 -33)': { '2024-06-d1': 8, '2024-06-d2': 31.25 } },
      layers as never,
    );
    expect(t.series[0]).toMatchObject({ unit: 'mm', decimals: 1, total: true });
    expect(isTotal(t.series[0]!, t.timeScale)).toBe(true);
  });
});
