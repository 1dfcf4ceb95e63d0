/**
 * NOAA's GHCNh station list as releases write it: with a header line or none, names holding a comma
 * (not quoted), heights NOAA fills with placeholders, lines without a position; a file that is not
 * the list is refused, naming it.
 */
import { describe, expect, it } from 'vitest';
import { parseGhcnhStationList } from '../../src/builder/import/ghcnh.ts';

const LINES = [
  'SFM00068816,-33.9648,18.6017,46.0,,CAPE TOWN INTL,GSN,,68816,FACT,ZA',
  'SFXLT000001,-33.9300,18.8600,9999.0,,STELLENBOSCH, ELSENBURG,,,,,ZA',
  'GMMU0010434,54.02,8.22,8191.0,,ELBE NO. 1 GERMANY,,,10434,,DE',
  'AOM00066116,-5.8667,13.4333,-999.9,,NOQUI,,,66116,,AO',
  'AGM00060350,37.083,6.45,-999.0,,BOGUS ALGERIAN,,,60350,,DZ',
  'SFXLT000002,,,,,NO POSITION,,,,,ZA',
];

describe("NOAA's GHCNh station list", () => {
  it.each([
    [
      'with a header',
      ['GHCN_ID,LATITUDE,LONGITUDE,ELEVATION,STATE,NAME,GSN,(US)HCN_(US)CRN,WMO_ID,ICAO,ISO_CODE', ...LINES],
    ],
    ['without one', LINES],
  ])('%s: ids, positions, names with commas, placeholder heights as unknown', (_, lines) => {
    const got = parseGhcnhStationList(`${lines.join('\r\n')}\r\n`, 'ghcnh-station-list.csv');
    expect([...got.keys()]).toEqual(['SFM00068816', 'SFXLT000001', 'GMMU0010434', 'AOM00066116', 'AGM00060350']);
    expect(got.get('SFM00068816')).toEqual({
      station_id: 'SFM00068816',
      name: 'CAPE TOWN INTL',
      lat: -33.9648,
      lon: 18.6017,
      elevation: 46,
    });
    expect(got.get('SFXLT000001')!.name).toBe('STELLENBOSCH, ELSENBURG');
    expect([...got.values()].slice(1).map((s) => s.elevation)).toEqual([null, null, null, null]);
  });

  it('refuses a file that is not the list, naming it', () => {
    expect(() => parseGhcnhStationList('<html><body>Not found</body></html>\n', 'list.csv')).toThrow(
      /list\.csv has no station line .*not NOAA's GHCNh station list/,
    );
  });
});
