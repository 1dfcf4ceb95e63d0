/** `climate-query layers`: list a dataset's layers; remove one; merge years built elsewhere. */
import { existsSync } from 'node:fs';
import { catalogLayersText } from '../layer-text.ts';
import { DEFAULT_DATASET } from '../demo.ts';
import { createNodeEngine } from '../node-engine.ts';
import { type CliCommand, type Help, parseCommand, usageError } from './command.ts';

const HELP: Help = {
  name: 'layers',
  usage: `Usage: climate-query layers [--data DIR|URL]
       climate-query layers remove NAME[/SUB] [--extent E] [--data DIR]
       climate-query layers merge SOURCE_DIR... [--data DIR]
       climate-query layers add STORE --layer NAME[/SUB] --data DIR [--time-scale S] [--unit U]
                                [--variable V] [--step X] [--crs EPSG:4326] [--extent E] [--replace]
       climate-query layers add STAC.json|TEMPLATE --layer NAME[/SUB] --data DIR --time-scale S --unit U
                                [--dates A..B] [--asset NAME] [--nodata=V|none] [--step X] [--crs EPSG:4326] …

  Lists the dataset's raster layers (dataType, subDataType, dataExtent,
  timeScale, dates, unit) and how to ask for each with query point|polygon.
  "remove" takes one layer out of a dataset folder: its catalog entry, then
  its files; every other layer and the stations stay as they are. --extent
  says which when the dataset has the layer on several extents.
  "merge" adds the raster layers of datasets built elsewhere (years of one
  layer built on several machines) to the dataset folder: a year it has
  already is replaced only by one holding at least the same dates; layers
  stored differently (grid, step, layout) are refused, and then nothing
  changes. Stations are not merged (the message says whose were left).
  "add" references a Zarr store (v2 or v3) another tool wrote (xarray's to_zarr,
  zarr-python) in place, inside the dataset folder or at an http(s) URL, as a
  layer: nothing is copied. Its array
  (time, lat, lon), codecs, grid, CF time and packing are read from its own
  metadata and checked; what it does not say (CRS, unit, time scale) must be
  passed (docs/layers.md, "Published stores"). It also references a collection
  of Cloud-Optimized GeoTIFFs, one per date (CHIRPS's, Digital Earth Africa's),
  from a static STAC JSON or a file name template with {yyyy}, {mm}, {dd} and
  --dates; --nodata states the missing value of files that carry none. A
  kerchunk reference (JSON, v0 or v1) to a NetCDF-4/HDF5 file is read as a
  store whose chunks are ranges of that file, beside the reference or at a URL.

Options:
  --data DIR|URL   dataset (default: the demo dataset, ${DEFAULT_DATASET})
  --extent E       with remove: the layer's extent (tc, sa, …); with add: the extent's name
  --layer N[/S]    with add: the layer's name and sub-type
  --time-scale S   with add: daily, monthly, … (a family's own when the name is one)
  --unit U         with add: the values' unit (default: the array's "units")
  --variable V     with add: the array, when the store holds several
  --step X         with add: the step answers are given at (default: the CF packing step; 0.001 for floats)
  --crs EPSG:4326  with add: when the store states no CRS (never guessed)
  --dates A..B     with add of a template: the first and last date it names
  --asset NAME     with add of a STAC: the asset to read, when an item has several GeoTIFFs
  --nodata V|none  with add of a COG collection whose files state no nodata value: the value that
                   means no data (--nodata=-9999 for CHIRPS), or none when every value is data
  --replace        with add: replace a layer of the same name and extent
  -h, --help       this help

Exit codes:
  0  listed, removed, or merged
  1  no dataset there, or it is unreadable
  2  bad arguments, no such layer (the message lists the layers there), or layers that cannot be merged
`,
};

async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(HELP, args, {
    data: { type: 'string' },
    extent: { type: 'string' },
    layer: { type: 'string' },
    'time-scale': { type: 'string' },
    unit: { type: 'string' },
    variable: { type: 'string' },
    step: { type: 'string' },
    crs: { type: 'string' },
    dates: { type: 'string' },
    asset: { type: 'string' },
    nodata: { type: 'string' },
    replace: { type: 'boolean' },
  });
  const data = values.data ?? DEFAULT_DATASET;
  if (positionals[0] === 'remove') {
    const [, name, ...extra] = positionals;
    if (!name || extra.length)
      usageError(HELP, `remove takes one layer, NAME or NAME/SUB${extra.length ? `; unexpected "${extra[0]}"` : ''}.`);
    if (/^https?:\/\//i.test(data))
      usageError(HELP, 'remove changes a dataset folder; --data must be a folder, not a URL.');
    const [dataType, subDataType = '-', more] = name.split('/');
    if (!dataType || more !== undefined) usageError(HELP, `"${name}" is not NAME or NAME/SUB.`);
    const { removeRasterLayer } = await import('../../builder/dataset/dataset-remove.ts');
    const r = await removeRasterLayer(data, dataType, subDataType, values.extent);
    process.stderr.write(
      `Removed layer ${r.removed} from ${data}: ${r.files.length} file(s) deleted${r.files.length ? ` (${r.files.join(', ')})` : ''}.\n`,
    );
    return 0;
  }
  if (positionals[0] === 'add') {
    const [, source, ...extra] = positionals;
    if (!source || extra.length)
      usageError(HELP, `add takes one store${extra.length ? `; unexpected "${extra[0]}"` : ''}.`);
    if (!values.layer) usageError(HELP, 'add needs --layer NAME[/SUB].');
    if (values.data === undefined) usageError(HELP, 'add needs --data DIR, the dataset folder the store is in.');
    const [dataType, subDataType, more] = values.layer.split('/');
    if (!dataType || more !== undefined) usageError(HELP, `"${values.layer}" is not NAME or NAME/SUB.`);
    const step = values.step === undefined ? undefined : Number(values.step);
    if (step !== undefined && !(step > 0)) usageError(HELP, `--step must be a number > 0; got "${values.step}".`);
    const { parseTimeScale } = await import('../../builder/raster-build-declare.ts');
    const timeScale = values['time-scale'] === undefined ? undefined : parseTimeScale(values['time-scale']);
    const nodata = values.nodata === undefined ? undefined : values.nodata === 'none' ? 'none' : Number(values.nodata);
    if (typeof nodata === 'number' && !Number.isFinite(nodata))
      usageError(HELP, `--nodata must be a number or none; got "${values.nodata}".`);
    // What every source takes; a STAC JSON or a file name template is a COG collection, anything else a Zarr store.
    const common = {
      dir: data,
      source,
      dataType,
      ...(subDataType !== undefined ? { subDataType } : {}),
      ...(values.unit !== undefined ? { unit: values.unit } : {}),
      ...(timeScale ? { timeScale } : {}),
      ...(step !== undefined ? { step } : {}),
      ...(values.crs !== undefined ? { crs: values.crs } : {}),
      ...(values.extent !== undefined ? { extent: values.extent } : {}),
      replace: values.replace ?? false,
    };
    const { isReferenceSource } = await import('../../builder/dataset/layer-add.ts');
    const reference = await isReferenceSource({ dir: data, source });
    const layer =
      !reference && (/\.json$/i.test(source) || source.includes('{'))
        ? await (await import('../../builder/dataset/cog-add.ts')).addCogLayer({
            ...common,
            ...(values.dates !== undefined ? { dates: values.dates } : {}),
            ...(values.asset !== undefined ? { asset: values.asset } : {}),
            ...(nodata !== undefined ? { nodata } : {}),
          })
        : await (await import('../../builder/dataset/layer-add.ts')).addStoreLayer({
            ...common,
            ...(values.variable !== undefined ? { variable: values.variable } : {}),
          });
    const { layerText } = await import('../layer-text.ts');
    process.stderr.write(`Added ${layer.files[0]!.path} as a layer, read in place:\n${layerText(layer)}`);
    const { isForeignPath } = await import('../../dataset/foreign.ts');
    if (isForeignPath(layer.files[0]!.path)) {
      const origin = new URL(layer.files[0]!.path).origin;
      process.stderr.write(
        `Its source is read from ${origin}: the CLI and serve answer from it with --allow-origin ${origin}; the app reads it from the browser, so that host must allow the app's origin (CORS: docs/deploy.md).\n`,
      );
    }
    return 0;
  }
  if (positionals[0] === 'merge') {
    const sources = positionals.slice(1);
    if (sources.length === 0) usageError(HELP, 'merge takes one or more dataset folders to add.');
    if (/^https?:\/\//i.test(data) || sources.some((s) => /^https?:\/\//i.test(s)))
      usageError(HELP, 'merge reads and changes dataset folders, not URLs.');
    const { mergeDatasets } = await import('../../builder/dataset/dataset-merge.ts');
    const r = await mergeDatasets(data, sources);
    for (const l of r.layers) {
      process.stderr.write(
        `${l.layer} from ${l.from}: ${l.added.length ? `added ${l.added.join(', ')}` : 'nothing new'}${l.replaced.length ? `; replaced ${l.replaced.join(', ')}` : ''}\n`,
      );
    }
    for (const s of r.stationsLeft)
      process.stderr.write(`${s}: its stations were not merged (merge adds raster layers).\n`);
    return 0;
  }
  if (values.extent !== undefined) usageError(HELP, '--extent goes with remove or add.');
  if (positionals.length > 0) usageError(HELP, `unexpected argument "${positionals[0]}".`);
  if (!/^https?:\/\//i.test(data) && !existsSync(`${data}/catalog.json`)) {
    process.stderr.write(`No dataset at ${data}. Run \`climate-query demo\` first, or pass --data DIR|URL.\n`);
    return 1;
  }
  const engine = createNodeEngine(data);
  try {
    process.stdout.write(catalogLayersText(await engine.catalog()));
    return 0;
  } finally {
    await engine.close();
  }
}

/** The `layers` command. */
export const layersCommand: CliCommand = { ...HELP, run };
