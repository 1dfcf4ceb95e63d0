/**
 * Where NOAA NCEI publishes each station archive `climate-query import` downloads: one URL
 * template per file, relative to NCEI's root (a mirror keeps the same paths under its own root).
 * The paths are NCEI's documented access folders, as of 2026.
 */

/** NCEI's root; `--mirror URL` or CLIMATE_QUERY_NOAA_MIRROR stands for it. */
export const NOAA_ROOT = 'https://www.ncei.noaa.gov/';

/** How one archive's files are found. */
export interface NoaaPaths {
  /** The file of a station's year (or its whole record, for archives not split by year). */
  file(station: string, year: number): string;
  /** Whether a file holds one year (else a station's whole record: fetched once). */
  perYear: boolean;
  /** The station list a build of it needs (positions and names), when its files carry none. */
  stationList?: string;
  /** A station id as the archive writes it (text: leading zeros, letters), after {@link normalise}. */
  id: RegExp;
  /** The id as the archive's paths need it (`688160-99999` and `68816099999` both name one ISD station). */
  normalise(station: string): string;
  /** What an id looks like, for messages. */
  example: string;
  /** The station list `--near` searches (positions of every station), when the archive has one this reads. */
  nearList?: { path: string; kind: 'isd-history' | 'ghcnd-stations' | 'ghcnh-station-list' };
}

const plain = (s: string) => s.trim();

export const NOAA_PATHS: Readonly<Record<string, NoaaPaths>> = {
  ghcnh: {
    file: (s, y) => `oa/global-historical-climatology-network/hourly/access/by-year/${y}/psv/GHCNh_${s}_${y}.psv`,
    perYear: true,
    id: /^[A-Z0-9_]{11}$/,
    normalise: (s) => plain(s).toUpperCase(),
    example: 'SFM00068816 (GHCN-style: country, network, station)',
    nearList: {
      path: 'oa/global-historical-climatology-network/hourly/doc/ghcnh-station-list.csv',
      kind: 'ghcnh-station-list',
    },
  },
  gsod: {
    file: (s, y) => `data/global-summary-of-the-day/access/${y}/${s}.csv`,
    perYear: true,
    id: /^[A-Z0-9]{11}$/,
    normalise: (s) => plain(s).replace('-', '').toUpperCase(),
    example: '68816099999 (USAF and WBAN)',
    nearList: { path: 'pub/data/noaa/isd-history.csv', kind: 'isd-history' },
  },
  'isd-lite': {
    file: (s, y) => `pub/data/noaa/isd-lite/${y}/${s.slice(0, 6)}-${s.slice(6)}-${y}.gz`,
    perYear: true,
    stationList: 'pub/data/noaa/isd-history.csv',
    id: /^[A-Z0-9]{11}$/,
    normalise: (s) => plain(s).replace('-', '').toUpperCase(),
    example: '688160-99999 (USAF-WBAN)',
    nearList: { path: 'pub/data/noaa/isd-history.csv', kind: 'isd-history' },
  },
  ghcnd: {
    file: (s) => `pub/data/ghcn/daily/all/${s}.dly`,
    perYear: false,
    stationList: 'pub/data/ghcn/daily/ghcnd-stations.txt',
    id: /^[A-Z0-9_]{11}$/,
    normalise: (s) => plain(s).toUpperCase(),
    example: 'SFM00068816',
    nearList: { path: 'pub/data/ghcn/daily/ghcnd-stations.txt', kind: 'ghcnd-stations' },
  },
};
