// The set of requests every adapter must answer identically.
import { readStations } from '../stations/oracle.ts';

export interface ParityRequest {
  path: string;
  body: Record<string, unknown>;
}

/** Requests over the station fixture (and raster layers, when the dataset has them). */
export function parityRequests(stationsCsv: string): ParityRequest[] {
  const s = readStations(stationsCsv);
  const pts = s
    .slice(0, 4)
    .map((x) => `POINT (${x.lon + 0.02} ${x.lat - 0.01})`)
    .join(';');
  const box = 'POLYGON ((18.2 -34.5, 20.5 -34.5, 20.5 -32.5, 18.2 -32.5, 18.2 -34.5))';
  return [
    {
      path: '/api/nearest-station/',
      body: {
        wkts: pts,
        dataTypes: ['temperature_mean', 'rain', 'leaf_wetness'],
        options: { timeScale: 'hourly' },
        startDate: '2024-02-01T00:00:00',
        endDate: '2024-02-02T23:00:00',
      },
    },
    {
      path: '/api/nearest-station/',
      body: {
        wkts: pts,
        dataTypes: ['et0', 'rain_sum', 'wind_direction_median'],
        options: { timeScale: 'daily' },
        startDate: '2024-01-01',
        endDate: '2024-03-31',
      },
    },
    {
      path: '/api/nearest-station/',
      body: {
        wkts: 'POINT (19.3 -33.4)',
        dataTypes: ['solar_rad_std', 'evaporation_sum'],
        options: { timeScale: 'monthly' },
        startDate: '2024-01',
        endDate: '2024-03',
      },
    },
    {
      path: '/api/poly-aggregate/',
      body: {
        wkts: box,
        dataTypes: ['temperature_max', 'humidity_min'],
        options: { timeScale: 'hourly' },
        startDate: '2024-03-01T00:00:00',
        endDate: '2024-03-01T23:00:00',
      },
    },
    {
      path: '/api/poly-aggregate/',
      body: {
        wkts: box,
        dataTypes: ['rain_sum', 'et0', 'leaf_wetnes_min'],
        options: { timeScale: 'daily' },
        startDate: '2024-01-10',
        endDate: '2024-02-10',
      },
    },
    {
      path: '/api/poly-aggregate/',
      body: {
        wkts: `MULTIPOLYGON (((18 -34.6, 19 -34.6, 19 -33.6, 18 -34.6)), ((19.5 -33.5, 21 -33.5, 21 -32, 19.5 -33.5)))`,
        dataTypes: ['rain_sum'],
        options: { timeScale: 'monthly' },
        startDate: '2023-12',
        endDate: '2024-04',
      },
    },
    {
      path: '/api/nearest-station/',
      body: {
        wkts: 'POINT (30 -25)',
        dataTypes: ['rain'],
        options: { timeScale: 'hourly' },
        startDate: '2031-01-01T00:00:00',
        endDate: '2031-01-01T02:00:00',
      },
    },
    {
      path: '/api/poly-aggregate/',
      body: {
        wkts: 'POLYGON ((30 -25, 30.1 -25, 30.1 -24.9, 30 -25))',
        dataTypes: ['rain_sum'],
        options: { timeScale: 'daily' },
        startDate: '2024-01-01',
        endDate: '2024-01-05',
      },
    },
    // The extension: chill, heat and frost per point by season, and over a polygon.
    {
      path: '/api/station-indices/',
      body: {
        wkts: pts,
        indices: ['chill_portions', 'dpcu', 'gdh', 'gdd', 'frost_days'],
        startDate: '2024-01-01',
        endDate: '2024-03-31',
        options: { by: 'season', chillSeason: '03-01/05-31', heatSeason: '01-01/02-15' },
      },
    },
    {
      path: '/api/station-indices/',
      body: {
        wkts: box,
        indices: ['utah_chill_units', 'winkler', 'frost_hours'],
        startDate: '2024-01-05',
        endDate: '2024-03-20',
        options: { maxGapHours: 24 },
      },
    },
  ];
}

// Orchard-sized fields (well under 2 km²) in the Elgin, Ceres and Robertson valleys; one straddles pixel edges.
const FIELDS = [
  'POLYGON ((19.0312 -34.1501, 19.0398 -34.1501, 19.0398 -34.1442, 19.0312 -34.1442, 19.0312 -34.1501))',
  'POLYGON ((19.3105 -33.3702, 19.3191 -33.3702, 19.3150 -33.3640, 19.3105 -33.3702))',
  'MULTIPOLYGON (((19.8793 -33.8011, 19.8850 -33.8011, 19.8850 -33.7968, 19.8793 -33.8011)), ((19.8900 -33.8000, 19.8960 -33.8000, 19.8960 -33.7950, 19.8900 -33.7950, 19.8900 -33.8000)))',
];
const POINTS = 'POINT (19.03 -34.15);POINT (19.31 -33.37);POINT (19.88 -33.8);POINT (18.42 -33.92);POINT (16.0 -33.0)';

/** Requests for every raster layer family of the demo dataset. */
export function rasterParityRequests(): ParityRequest[] {
  const polys = FIELDS.join(';');
  return [
    {
      path: '/api/point/',
      body: {
        wkts: POINTS,
        dataType: 'temp',
        options: { subDataType: 'mean', timeScale: 'daily', dataExtent: 'tc' },
        startDate: '2024-01-01',
        endDate: '2024-12-31',
      },
    },
    {
      path: '/api/polygon/',
      body: {
        wkts: polys,
        dataType: 'temp',
        options: { subDataType: 'min', timeScale: 'daily', dataExtent: 'tc', aggregationMethod: 'min' },
        startDate: '2024-06-01',
        endDate: '2024-08-31',
      },
    },
    {
      path: '/api/point/',
      body: {
        wkts: POINTS,
        dataType: 'gdd',
        options: { subDataType: 'apples', timeScale: 'annual', dataExtent: 'tc' },
        startDate: '2019',
        endDate: '2024',
      },
    },
    {
      path: '/api/polygon/',
      body: {
        wkts: polys,
        dataType: 'chill',
        options: { subDataType: 'ucu', timeScale: 'annual', dataExtent: 'tc', aggregationMethod: 'mean' },
        startDate: '2019',
        endDate: '2024',
      },
    },
    {
      path: '/api/polygon/',
      body: {
        wkts: polys,
        dataType: 'frost',
        options: { timeScale: 'monthly', dataExtent: 'tc', aggregationMethod: 'max' },
        startDate: '2024-05',
        endDate: '2024-09',
      },
    },
    {
      path: '/api/point/',
      body: {
        wkts: POINTS,
        dataType: 'rain',
        options: { subDataType: 'monthly_median', timeScale: 'calendar_month', dataExtent: 'sa' },
        startDate: '11',
        endDate: '02',
      },
    },
    {
      path: '/api/point/',
      body: { wkts: POINTS, dataType: 'windspeed', options: { subDataType: '100', dataExtent: 'sa' } },
    },
    {
      path: '/api/polygon/',
      body: {
        wkts: polys,
        dataType: 'windspeed',
        options: { subDataType: '150', dataExtent: 'sa', aggregationMethod: 'mean' },
      },
    },
  ];
}
