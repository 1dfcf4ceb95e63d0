// Placeholder entry until the map UI lands: shows what the demo dataset holds.
const app = document.getElementById('app')!;
const res = await fetch('./data/demo/catalog.json');
const catalog = (await res.json()) as { stations: { stations: unknown[] } | null; rasters: unknown[] };
app.textContent = `climate-query demo dataset: ${catalog.stations?.stations.length ?? 0} stations, ${catalog.rasters.length} raster layers.`;
export {};
