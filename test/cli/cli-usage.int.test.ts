// The CLI's behaviour as a shell user meets it: help, --version, unknown
// options, exit codes, and a reader that closes the pipe early. Real child
// processes of the real bin.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { readStations } from '../stations/oracle.ts';
import { BIN, cli } from '../helpers/cli.ts';

const COMMANDS = ['query', 'build', 'serve', 'demo'] as const;
const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string };

const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at |TypeError|Error \[/);

describe('climate-query help and version', () => {
  it.each([['--help'], ['-h'], ['help']])(
    '%s prints the overview on stdout, naming every command, and exits 0',
    async (flag) => {
      const { code, stdout, stderr } = await cli([flag]);
      expect(code).toBe(0);
      expect(stderr).toBe('');
      for (const c of COMMANDS) expect(stdout).toContain(`climate-query ${c}`);
      expect(stdout).toContain('Exit codes');
    },
  );

  it('--version prints the package version and exits 0', async () => {
    const { code, stdout } = await cli(['--version']);
    expect(code).toBe(0);
    expect(stdout).toBe(`${pkg.version}\n`);
  });

  it('no arguments prints the overview on stderr and exits 2', async () => {
    const { code, stdout, stderr } = await cli([]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('Usage:');
  });

  it.each(COMMANDS)(
    '%s --help (and -h, and help <command>) prints its usage with options and exit codes, exit 0',
    async (command) => {
      const long = await cli([command, '--help']);
      expect(long.code).toBe(0);
      expect(long.stderr).toBe('');
      noStack(long.stdout);
      expect(long.stdout).toContain(`climate-query ${command}`);
      expect(long.stdout).toMatch(/Exit codes:\n {2}0 .+\n {2}1 .+\n {2}2 .+/);
      expect(long.stdout).toContain('--help');
      // --help wins over other arguments, even invalid ones.
      const short = await cli([command, '--no-such-option', 'x', '-h']);
      expect(short.code).toBe(0);
      expect(short.stdout).toBe(long.stdout);
      const viaHelp = await cli(['help', command]);
      expect(viaHelp.stdout).toBe(long.stdout);
    },
  );
});

describe('climate-query usage errors', () => {
  it.each(COMMANDS)(
    '%s with an unknown option prints the problem and its usage on stderr, exit 2, no stack',
    async (command) => {
      const { code, stdout, stderr } = await cli([command, '--no-such-option']);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toContain("'--no-such-option'");
      // The same usage text as --help, on stderr.
      expect(stderr.endsWith((await cli([command, '--help'])).stdout)).toBe(true);
      noStack(stderr);
    },
  );

  it.each([
    [['query', '--data'], 'argument missing'],
    [['query', 'nearest-station'], 'needs an endpoint'],
    [['query', 'nowhere', 'x.json'], 'needs an endpoint'],
    [['query', 'point', 'x.json', '--backend', 'wasm'], "Unknown option '--backend'"],
    [['query', 'point', 'x.json', '--timeout', '0'], '--timeout must be a number of seconds above 0'],
    [['build', '--out', 'x'], 'needs --out DIR and either'],
    [['build', '--out', 'x', '--layer', 'snow/deep/x', 'a.tif'], '--layer must be NAME or NAME/SUB'],
    [['build', '--layer', 'snow/deep', 'a.tif'], '--layer needs --out DIR'],
    [['index'], 'needs one DIR'],
    [['serve', '--port', 'http'], '--port must be an integer'],
    [['serve', 'extra'], 'unexpected argument'],
    [['demo', 'extra'], 'unexpected argument'],
  ])('%j: exit 2 with "%s" and no stack', async (args, message) => {
    const { code, stderr } = await cli(args);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
    noStack(stderr);
  });

  it('an unknown command names it, prints the overview, exit 2', async () => {
    const { code, stderr } = await cli(['frobnicate']);
    expect(code).toBe(2);
    expect(stderr).toContain('unknown command "frobnicate"');
    noStack(stderr);
  });
});

describe('climate-query with a reader that stops early', () => {
  const fx = inject('stationFixture');

  it('ends quietly with exit 0 when stdout is closed mid-answer (… | head -c 10)', async () => {
    const stations = readStations(fx.stationsCsv);
    const wkts = stations
      .slice(0, 10)
      .map((s) => `POINT (${s.lon + 0.01} ${s.lat - 0.01})`)
      .join(';');
    const file = join(fx.root, 'req-epipe.json');
    // About 3 MB of answer: far more than a pipe buffer, so the write meets the closed pipe.
    await writeFile(
      file,
      JSON.stringify({
        wkts,
        dataTypes: ['temperature_mean', 'rain', 'humidity', 'wind_speed', 'leaf_wetness'],
        options: { timeScale: 'hourly' },
        startDate: '2024-01-01T00:00:00',
        endDate: '2024-03-31T23:00:00',
      }),
    );
    const child = spawn(process.execPath, [BIN, 'query', 'nearest-station', file, '--data', fx.dataset], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let received = 0;
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout.on('data', (c: Buffer) => {
      received += c.length;
      child.stdout.destroy();
    });
    const code = await new Promise<number | null>((ok) => child.on('close', (c) => ok(c)));
    expect(received).toBeGreaterThan(0);
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});

describe('climate-query serve --static (npm run preview)', () => {
  const fx = inject('stationFixture');

  it('serves a built site from --static and the API on --data, answers the OpenAPI document, and exits 0 on SIGTERM', async () => {
    const site = join(fx.root, 'site');
    await mkdir(site, { recursive: true });
    await writeFile(join(site, 'index.html'), '<!doctype html><title>site</title>');
    const child = spawn(process.execPath, [BIN, 'serve', '--static', site, '--data', fx.dataset, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const url = await new Promise<string>((ok, fail) => {
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
        const m = /at (http:\/\/\S+\/) /.exec(stderr);
        if (m) ok(m[1]!);
      });
      child.on('close', () => fail(new Error(stderr)));
    });
    try {
      const page = await fetch(`${url}index.html`, { headers: { Range: 'bytes=0-8' } });
      expect(page.status).toBe(206);
      expect(await page.text()).toBe('<!doctype');
      const catalog = await fetch(`${url}catalog.json`);
      expect(catalog.status).toBe(404); // the dataset's files are not served: --static replaces them
      const answer = await fetch(`${url}api/nearest-station/`, {
        method: 'POST',
        body: JSON.stringify({
          wkts: 'POINT (19 -33.5)',
          dataTypes: ['rain_sum'],
          options: { timeScale: 'monthly' },
          startDate: '2024-01',
          endDate: '2024-02',
        }),
      });
      expect(answer.status).toBe(200);
      expect(Object.keys((await answer.json())['POINT (19 -33.5)'].data)).toEqual(['2024-01-01', '2024-02-01']);
      const openapi = await fetch(`${url}api/openapi.json`);
      expect((await openapi.json()).openapi).toBe('3.1.0');
    } finally {
      child.kill('SIGTERM');
    }
    const code = await new Promise<number | null>((ok) =>
      child.exitCode !== null ? ok(child.exitCode) : child.on('close', (c) => ok(c)),
    );
    expect(code).toBe(0);
  });

  it('says to build the site when --static names no folder, exit 1', async () => {
    const { code, stderr } = await cli(['serve', '--static', join(fx.root, 'no-site'), '--data', fx.dataset]);
    expect(code).toBe(1);
    expect(stderr).toContain('npm run build');
  });
});
