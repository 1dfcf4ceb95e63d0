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

Options:
  --data DIR|URL   dataset (default: the demo dataset, ${DEFAULT_DATASET})
  --extent E       with remove: the layer's extent (tc, sa, …)
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
  if (values.extent !== undefined) usageError(HELP, '--extent goes with remove.');
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
