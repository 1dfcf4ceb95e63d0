/** `climate-query serve`: the four routes (and a built site) over HTTP. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_DATASET } from '../demo.ts';
import { createNodeEngine } from '../node-engine.ts';
import { startServer } from '../server.ts';
import { allowOriginOption } from './query.ts';
import { type CliCommand, type Help, parseCommand, timeoutOption, usageError } from './command.ts';

const HELP: Help = {
  name: 'serve',
  usage: `Usage: climate-query serve [--data DIR|URL] [--static DIR] [--port 8787] [--host 127.0.0.1] [--timeout SECONDS]
                            [--follow-links] [--all-files] [--allow-origin ORIGIN ...]

  Serves POST /api/<endpoint>/, GET /api/openapi.json and the dataset's files
  (Range, HEAD, CORS) from one process. Ctrl-C stops it. From a dataset folder
  it serves only what the dataset lists (catalog.json, the files it names, its
  zarr stores' objects, its station archive); no dotfile is ever served (a zarr
  store's .zmetadata/.zarray/.zattrs/.zgroup excepted). A client has 20 s for
  its headers and 30 s for its whole request; at most 256 connections at once.

Options:
  --data DIR|URL   dataset to serve (default: the demo dataset, ${DEFAULT_DATASET})
  --static DIR     serve this folder's files instead of the dataset's, e.g. a built site
                   (npm run preview: --static dist --data dist/data/demo)
  --port N         port to listen on (default 8787; 0 picks a free one)
  --host H         address to listen on (default 127.0.0.1, this machine only)
  --timeout S      each query's budget in seconds (default 30); past it, 504 upstream_timeout
  --follow-links   read and serve files a symlink in the dataset folder leads out of it to
                   (default: the API refuses them and the static side answers 404)
  --all-files      serve the dataset folder as it is (dotfiles still not), not only what it lists
  --allow-origin O answer from layers the catalog references at a URL of origin O
                   (https://host[:port]); repeatable. None by default. Never an internal
                   (loopback, private, link-local) address unless O names it by IP
  -h, --help       this help

Exit codes:
  0  stopped by Ctrl-C (SIGINT) or SIGTERM
  1  no dataset at --data, or the port cannot be opened
  2  bad arguments
`,
};

async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(HELP, args, {
    data: { type: 'string' },
    static: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    timeout: { type: 'string' },
    'follow-links': { type: 'boolean' },
    'all-files': { type: 'boolean' },
    'allow-origin': { type: 'string', multiple: true },
  });
  if (positionals.length > 0) usageError(HELP, `unexpected argument "${positionals[0]}".`);
  const timeoutMs = timeoutOption(HELP, values.timeout);
  const data = values.data ?? DEFAULT_DATASET;
  const port = values.port === undefined ? 8787 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    usageError(HELP, `--port must be an integer 0–65535; got "${values.port}".`);
  }
  const isUrl = /^https?:\/\//i.test(data);
  if (!isUrl && !existsSync(`${data}/catalog.json`)) {
    process.stderr.write(`No dataset at ${data}. Run \`climate-query demo\` first, or pass --data DIR|URL.\n`);
    return 1;
  }
  if (values.static && !existsSync(values.static)) {
    process.stderr.write(`No folder at ${values.static}. Build the site first (npm run build).\n`);
    return 1;
  }
  const allowOrigins = allowOriginOption(HELP, values['allow-origin']);
  const engine = createNodeEngine(data, { timeoutMs, followLinks: values['follow-links'], allowOrigins });
  const running = await startServer({
    engine,
    port,
    host: values.host ?? '127.0.0.1',
    ...(values.static ? { staticRoot: values.static } : isUrl ? {} : { staticRoot: data }),
    // The dataset folder serves what its catalog and index list, unless asked to serve it as it is.
    listedOnly: !values.static && !isUrl && values['all-files'] !== true,
    followLinks: values['follow-links'] === true,
    // A folder's catalog is followed: a build, merge or remove into it is answered from at once.
    ...(isUrl ? {} : { catalogFile: join(data, 'catalog.json') }),
  });
  const app = values.static && existsSync(`${values.static}/index.html`) ? `\n  open the app: ${running.url}` : '';
  process.stderr.write(`climate-query serving ${data} at ${running.url} (POST ${running.url}api/<endpoint>/)${app}\n`);
  await new Promise<void>((resolveStop) => {
    const stop = () => resolveStop();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await running.close();
  await engine.close();
  process.stderr.write('climate-query: stopped.\n');
  return 0;
}

/** The `serve` command. */
export const serveCommand: CliCommand = { ...HELP, run };
