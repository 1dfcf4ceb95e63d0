/**
 * The static hosts and dev servers people put the app on, each started the
 * way a user following the distribution's (or the tool's) defaults would:
 * serving a built site (the site of `buildSite(demo)`, dataset at data/demo/)
 * on a free loopback port. Used by test/hosts/host-matrix.browser.test.ts.
 *
 * Every starter returns a running host, or `{ skipped }` naming why it could
 * not run (its program is not installed), so the matrix reports it by name.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, extname, join, relative, sep } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);
/** The repository root (the app's sources, vite.config.ts, node_modules). */
export const REPO = new URL('../..', import.meta.url).pathname;

/** A host serving the site. */
export interface RunningHost {
  name: string;
  /** The URL at which the app opens. */
  url: string;
  /** Whether the host answers byte ranges (206); only python's http.server does not. */
  rangeSupported: boolean;
  /** The host's own access log, when it writes one (for diagnosis). */
  accessLog?: () => Promise<string>;
  stop(): Promise<void>;
}

/** A host that cannot run on this machine. */
export interface SkippedHost {
  name: string;
  skipped: string;
}

export type HostResult = RunningHost | SkippedHost;
export type HostStarter = (site: string) => Promise<HostResult>;

export const isSkipped = (h: HostResult): h is SkippedHost => 'skipped' in h;

// ---------------------------------------------------------------- plumbing

/** A port nobody listens on now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createNetServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** The first of `candidates` that exists as a file, or a name found on PATH (with the sbin folders a root shell has). */
function findProgram(...candidates: string[]): string | null {
  const dirs = [
    ...(process.env.PATH ?? '').split(':'),
    '/usr/local/sbin',
    '/usr/local/bin',
    '/usr/sbin',
    '/usr/bin',
    '/sbin',
    '/bin',
  ];
  for (const c of candidates) {
    if (c.includes('/')) {
      if (existsSync(c)) return c;
      continue;
    }
    for (const d of dirs) if (d && existsSync(join(d, c))) return join(d, c);
  }
  return null;
}

/** An npm package's bin script in the repository's node_modules (run with this Node). */
function npmBin(pkg: string, bin?: string): string | null {
  const pj = join(REPO, 'node_modules', pkg, 'package.json');
  if (!existsSync(pj)) return null;
  return join(REPO, 'node_modules/.bin', bin ?? pkg);
}

const running = (uid = process.getuid?.()) => uid === 0;

/**
 * Daemons that drop privileges (nginx, Apache, lighttpd started as root run
 * their workers as www-data) must be able to read the site: the temp folders
 * mkdtemp makes are 0700. Opens the folders on the way, and the site's tree.
 */
async function worldReadable(site: string): Promise<void> {
  const walk = async (dir: string): Promise<void> => {
    await chmod(dir, 0o755);
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.isFile()) {
        const m = (await stat(p)).mode & 0o777;
        if ((m & 0o004) === 0) await chmod(p, m | 0o444);
      }
    }
  };
  await walk(site);
  // Parents up to /tmp (or wherever): at least traversable.
  for (let d = dirname(site); d !== dirname(d) && d.startsWith(tmpdir() + sep); d = dirname(d)) {
    const m = (await stat(d)).mode & 0o777;
    if ((m & 0o005) !== 0o005) await chmod(d, m | 0o755);
  }
}

/** Resolves once `url` answers HTTP at all (any status); rejects with the child's output if it exits first or after `ms`. */
// 60 s: s3rver (a Node program loading Koa and its XML stack) took over 20 s to answer on a CI
// machine whose two cores were drawing maps in the other test worker.
async function waitUntilUp(url: string, child: ChildProcess | null, output: () => string, ms = 60_000): Promise<void> {
  const t0 = Date.now();
  let exited: string | null = null;
  child?.once('exit', (code, signal) => (exited = `exited with ${code ?? signal}`));
  for (;;) {
    if (exited) throw new Error(`${exited} before answering ${url}:\n${output()}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000), redirect: 'manual' });
      await res.arrayBuffer().catch(() => undefined);
      return;
    } catch {
      /* not yet */
    }
    if (Date.now() - t0 > ms) throw new Error(`${url} did not answer within ${ms} ms:\n${output()}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** Starts a foreground server process and waits until `probeUrl` answers. */
async function startProcess(
  name: string,
  command: string,
  args: string[],
  probeUrl: string,
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ child: ChildProcess; output: () => string; stop: () => Promise<void> }> {
  const child = spawn(command, args, {
    cwd: options.cwd ?? REPO,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out = (out + c.toString()).slice(-20_000)));
  child.stderr!.on('data', (c: Buffer) => (out = (out + c.toString()).slice(-20_000)));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await gone;
    clearTimeout(t);
  };
  try {
    await waitUntilUp(probeUrl, child, () => `${name}: ${command} ${args.join(' ')}\n${out}`);
  } catch (e) {
    await stop();
    throw e;
  }
  return { child, output: () => out, stop };
}

const readLog = (path: string) => () => readFile(path, 'utf8').catch(() => '');

// ---------------------------------------------------------------- hosts

/** Options of {@link startNginx}. */
export interface NginxOptions {
  /** Adds `types { text/javascript mjs; }` (Debian's mime.types has no .mjs). Default false: as the distribution ships it. */
  extraMjs?: boolean;
}

/**
 * nginx with Debian's defaults: `/etc/nginx/mime.types` included unchanged,
 * `gzip on; gzip_vary on;`, a server block as Debian's default site
 * (`try_files $uri $uri/ =404`), pid, logs and temp paths in a temp folder.
 */
export async function startNginx(site: string, options: NginxOptions = {}): Promise<HostResult> {
  const name = options.extraMjs ? 'nginx+mjs' : 'nginx';
  const bin = findProgram('nginx');
  if (!bin) return { name, skipped: 'nginx is not installed (apt-get install nginx-light)' };
  if (!existsSync('/etc/nginx/mime.types'))
    return { name, skipped: '/etc/nginx/mime.types is missing (apt-get install nginx-common)' };
  await worldReadable(site);
  const dir = await mkdtemp(join(tmpdir(), 'cq-nginx-'));
  await chmod(dir, 0o755);
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  await writeFile(
    conf,
    `${running() ? 'user www-data;\n' : ''}worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 256; }
http {
  sendfile on;
  tcp_nopush on;
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
${options.extraMjs ? '  types { text/javascript mjs; }\n' : ''}  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  gzip on;
  gzip_vary on;
  server {
    listen 127.0.0.1:${port};
    root ${site};
    index index.html index.htm;
    location / {
      try_files $uri $uri/ =404;
    }
  }
}
`,
  );
  const url = `http://127.0.0.1:${port}/`;
  const p = await startProcess(
    name,
    bin,
    ['-c', conf, '-p', dir, '-e', `${dir}/error.log`, '-g', 'daemon off;'],
    url,
  ).catch(async (e: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw e;
  });
  return {
    name,
    url,
    rangeSupported: true,
    accessLog: readLog(`${dir}/access.log`),
    stop: async () => {
      await p.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Apache 2.4 with Debian's enabled modules (`/etc/apache2/mods-enabled`,
 * which bring mod_mime with `TypesConfig /etc/mime.types`, mod_dir and
 * mod_deflate) and a DocumentRoot as Debian's default site.
 */
export async function startApache(site: string): Promise<HostResult> {
  const name = 'apache';
  const bin = findProgram('apache2', 'httpd');
  if (!bin) return { name, skipped: 'Apache is not installed (apt-get install apache2)' };
  if (!existsSync('/etc/apache2/mods-enabled')) return { name, skipped: '/etc/apache2/mods-enabled is missing' };
  await worldReadable(site);
  const dir = await mkdtemp(join(tmpdir(), 'cq-apache-'));
  await chmod(dir, 0o755);
  const port = await freePort();
  const conf = join(dir, 'apache2.conf');
  await writeFile(
    conf,
    `ServerRoot /etc/apache2
ServerName 127.0.0.1
DefaultRuntimeDir ${dir}
PidFile ${dir}/apache2.pid
Mutex file:${dir} default
ErrorLog ${dir}/error.log
LogLevel warn
${running() ? 'User www-data\nGroup www-data\n' : ''}Timeout 300
KeepAlive On
IncludeOptional /etc/apache2/mods-enabled/*.load
IncludeOptional /etc/apache2/mods-enabled/*.conf
LogFormat "%h %l %u %t \\"%r\\" %>s %O \\"%{Range}i\\"" cq
CustomLog ${dir}/access.log cq
AccessFileName .htaccess
<Directory />
  Options FollowSymLinks
  AllowOverride None
  Require all denied
</Directory>
<Directory ${site}>
  Options Indexes FollowSymLinks
  AllowOverride None
  Require all granted
</Directory>
Listen 127.0.0.1:${port}
<VirtualHost 127.0.0.1:${port}>
  DocumentRoot ${site}
</VirtualHost>
`,
  );
  const url = `http://127.0.0.1:${port}/`;
  const env = {
    ...process.env,
    APACHE_RUN_DIR: dir,
    APACHE_LOCK_DIR: dir,
    APACHE_LOG_DIR: dir,
    APACHE_PID_FILE: `${dir}/apache2.pid`,
    APACHE_RUN_USER: 'www-data',
    APACHE_RUN_GROUP: 'www-data',
  };
  const p = await startProcess(name, bin, ['-f', conf, '-DFOREGROUND'], url, { env }).catch(async (e: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw e;
  });
  return {
    name,
    url,
    rangeSupported: true,
    accessLog: readLog(`${dir}/access.log`),
    stop: async () => {
      await p.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Caddy 2 as its Debian Caddyfile has it (`root * …` and `file_server`), on a loopback port, admin API off. */
export async function startCaddy(site: string): Promise<HostResult> {
  const name = 'caddy';
  const bin = findProgram('caddy');
  if (!bin) return { name, skipped: 'Caddy is not installed (apt-get install caddy)' };
  const dir = await mkdtemp(join(tmpdir(), 'cq-caddy-'));
  const port = await freePort();
  const conf = join(dir, 'Caddyfile');
  await writeFile(
    conf,
    `{
  admin off
  auto_https off
}
http://127.0.0.1:${port} {
  bind 127.0.0.1
  root * ${site}
  file_server
  log {
    output file ${dir}/access.log
  }
}
`,
  );
  const url = `http://127.0.0.1:${port}/`;
  const env = { ...process.env, HOME: dir, XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config') };
  const p = await startProcess(name, bin, ['run', '--config', conf, '--adapter', 'caddyfile'], url, {
    env,
    cwd: dir,
  }).catch(async (e: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw e;
  });
  return {
    name,
    url,
    rangeSupported: true,
    accessLog: readLog(`${dir}/access.log`),
    stop: async () => {
      await p.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * lighttpd with Debian's lighttpd.conf settings: its modules, parse options,
 * `index-file.names`, the MIME types Debian generates from /etc/mime.types
 * (`create-mime.conf.pl`) and the enabled conf-enabled/ snippets.
 */
export async function startLighttpd(site: string): Promise<HostResult> {
  const name = 'lighttpd';
  const bin = findProgram('lighttpd');
  if (!bin) return { name, skipped: 'lighttpd is not installed (apt-get install lighttpd)' };
  await worldReadable(site);
  const dir = await mkdtemp(join(tmpdir(), 'cq-lighttpd-'));
  await chmod(dir, 0o755);
  const port = await freePort();
  const conf = join(dir, 'lighttpd.conf');
  const mime = existsSync('/usr/share/lighttpd/create-mime.conf.pl')
    ? 'include_shell "/usr/share/lighttpd/create-mime.conf.pl"'
    : mimeAssignFromEtc();
  await writeFile(
    conf,
    `server.modules = ( "mod_indexfile", "mod_access", "mod_alias", "mod_redirect", "mod_accesslog" )
server.document-root = "${site}"
server.errorlog = "${dir}/error.log"
server.pid-file = "${dir}/lighttpd.pid"
server.bind = "127.0.0.1"
server.port = ${port}
${running() ? 'server.username = "www-data"\nserver.groupname = "www-data"\n' : ''}accesslog.filename = "${dir}/access.log"
accesslog.format = "%h %t \\"%r\\" %>s %b \\"%{Range}i\\""
server.http-parseopts = (
  "header-strict" => "enable",
  "host-strict" => "enable",
  "host-normalize" => "enable",
  "url-normalize-unreserved" => "enable",
  "url-normalize-required" => "enable",
  "url-ctrls-reject" => "enable",
  "url-path-2f-decode" => "enable",
  "url-path-dotseg-remove" => "enable",
)
index-file.names = ( "index.php", "index.html" )
url.access-deny = ( "~", ".inc" )
static-file.exclude-extensions = ( ".php", ".pl", ".fcgi" )
${mime}
${existsSync('/etc/lighttpd/conf-enabled') ? 'include "/etc/lighttpd/conf-enabled/*.conf"' : ''}
server.modules += ( "mod_dirlisting", "mod_staticfile" )
`,
  );
  // lighttpd opens its logs after dropping privileges to www-data.
  await writeFile(`${dir}/access.log`, '');
  await writeFile(`${dir}/error.log`, '');
  if (running()) await exec('chown', ['www-data:www-data', `${dir}/access.log`, `${dir}/error.log`]);
  const url = `http://127.0.0.1:${port}/`;
  const p = await startProcess(name, bin, ['-D', '-f', conf], url).catch(async (e: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw e;
  });
  return {
    name,
    url,
    rangeSupported: true,
    accessLog: readLog(`${dir}/access.log`),
    stop: async () => {
      await p.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** lighttpd's mimetype.assign from /etc/mime.types, when Debian's generator script is absent. */
function mimeAssignFromEtc(): string {
  return `mimetype.assign = (\n${[...etcMimeTypes()].map(([ext, type]) => `  ".${ext}" => "${type}",`).join('\n')}\n)`;
}

/** /etc/mime.types as extension → type (the first type listing an extension wins, as Debian's tools read it). */
export function etcMimeTypes(): Map<string, string> {
  const map = new Map<string, string>();
  let text = '';
  try {
    text = readFileSync('/etc/mime.types', 'utf8');
  } catch {
    return map;
  }
  for (const line of text.split('\n')) {
    const l = line.replace(/#.*/, '').trim();
    if (!l) continue;
    const [type, ...exts] = l.split(/\s+/);
    for (const e of exts) if (!map.has(e)) map.set(e, type!);
  }
  return map;
}

/** `vite preview` of the site, from the repository root (its vite.config.ts), as `npx vite preview --outDir …` runs it. */
export async function startVitePreview(site: string): Promise<HostResult> {
  const name = 'vite-preview';
  const vite = join(REPO, 'node_modules/vite/bin/vite.js');
  if (!existsSync(vite)) return { name, skipped: 'vite is not installed (npm install)' };
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const p = await startProcess(
    name,
    process.execPath,
    [vite, 'preview', '--outDir', site, '--port', String(port), '--host', '127.0.0.1', '--strictPort'],
    url,
  );
  return { name, url, rangeSupported: true, stop: p.stop };
}

/**
 * The Vite dev server as `npm start` runs it: the repository root (the app's
 * sources, not dist/), with the dataset under the public folder at
 * data/demo/ (a temp copy of the site's data/demo/).
 */
export async function startViteDev(site: string): Promise<HostResult> {
  const name = 'vite-dev';
  if (!existsSync(join(REPO, 'node_modules/vite/package.json')))
    return { name, skipped: 'vite is not installed (npm install)' };
  const pub = await mkdtemp(join(tmpdir(), 'cq-vite-public-'));
  await mkdir(join(pub, 'data'), { recursive: true });
  await cp(join(site, 'data/demo'), join(pub, 'data/demo'), { recursive: true });
  const { createServer } = await import('vite');
  let server: Awaited<ReturnType<typeof createServer>> | undefined;
  try {
    server = await createServer({
      root: REPO,
      publicDir: pub,
      // A fresh dependency cache, as on a fresh clone: with the repository's own (node_modules/.vite)
      // warm from earlier runs, a dependency Vite finds only once the Worker loads went unnoticed.
      cacheDir: join(pub, '.vite-cache'),
      logLevel: 'error',
      server: { host: '127.0.0.1', port: 0, strictPort: false, hmr: false },
    });
    await server.listen();
  } catch (e) {
    await server?.close().catch(() => undefined);
    await rm(pub, { recursive: true, force: true });
    throw e;
  }
  const dev = server;
  const { port } = dev.httpServer!.address() as { port: number };
  return {
    name,
    url: `http://127.0.0.1:${port}/`,
    rangeSupported: true,
    stop: async () => {
      await dev.close();
      await rm(pub, { recursive: true, force: true });
    },
  };
}

/** sirv-cli with its defaults: `sirv SITE --host 127.0.0.1 --port P`. */
export async function startSirv(site: string): Promise<HostResult> {
  const name = 'sirv';
  const bin = npmBin('sirv-cli', 'sirv');
  if (!bin) return { name, skipped: 'sirv-cli is not installed (npm install)' };
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const p = await startProcess(name, process.execPath, [bin, site, '--host', '127.0.0.1', '--port', String(port)], url);
  return { name, url, rangeSupported: true, stop: p.stop };
}

/** http-server with its defaults: `http-server SITE -a 127.0.0.1 -p P` (max-age 3600, no gzip). */
export async function startHttpServer(site: string): Promise<HostResult> {
  const name = 'http-server';
  const bin = npmBin('http-server');
  if (!bin) return { name, skipped: 'http-server is not installed (npm install)' };
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const p = await startProcess(name, process.execPath, [bin, site, '-a', '127.0.0.1', '-p', String(port)], url);
  return { name, url, rangeSupported: true, stop: p.stop };
}

/** Vercel's `serve` with its defaults (clean URLs, compression): `serve SITE -l tcp://127.0.0.1:P`. */
export async function startServe(site: string): Promise<HostResult> {
  const name = 'serve';
  const bin = npmBin('serve');
  if (!bin) return { name, skipped: 'serve is not installed (npm install)' };
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const p = await startProcess(
    name,
    process.execPath,
    [bin, site, '-l', `tcp://127.0.0.1:${port}`, '--no-clipboard', '--no-port-switching'],
    url,
    { env: { ...process.env, NO_UPDATE_CHECK: '1' } },
  );
  return { name, url, rangeSupported: true, stop: p.stop };
}

/** `python3 -m http.server --bind 127.0.0.1 P --directory SITE`: no Range support (whole files). */
export async function startPython(site: string): Promise<HostResult> {
  const name = 'python';
  const bin = findProgram('python3');
  if (!bin) return { name, skipped: 'python3 is not installed' };
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const p = await startProcess(
    name,
    bin,
    ['-m', 'http.server', '--bind', '127.0.0.1', String(port), '--directory', site],
    url,
  );
  return { name, url, rangeSupported: false, stop: p.stop };
}

/** The bucket the S3 host holds the site in. */
export const S3_BUCKET = 'climate-query';

const S3_CORS = `<CORSConfiguration>
  <CORSRule>
    <AllowedOrigin>*</AllowedOrigin>
    <AllowedMethod>GET</AllowedMethod>
    <AllowedMethod>HEAD</AllowedMethod>
    <AllowedHeader>*</AllowedHeader>
    <ExposeHeader>Content-Length</ExposeHeader>
    <ExposeHeader>Content-Range</ExposeHeader>
    <ExposeHeader>Accept-Ranges</ExposeHeader>
    <ExposeHeader>ETag</ExposeHeader>
    <MaxAgeSeconds>3000</MaxAgeSeconds>
  </CORSRule>
</CORSConfiguration>`;

/**
 * An S3 API (npm s3rver, `s3rver -d DIR --configure-bucket NAME cors.xml`):
 * a bucket with a CORS rule, the site uploaded with plain PUTs (as
 * `aws s3 sync` does, with the content type guessed from the extension by
 * Python's mimetypes, which reads /etc/mime.types), opened at the bucket
 * URL's /index.html (the API endpoint has no index document).
 */
export async function startS3(site: string): Promise<HostResult> {
  const name = 's3';
  const bin = npmBin('s3rver');
  if (!bin) return { name, skipped: 's3rver is not installed (npm install)' };
  const dir = await mkdtemp(join(tmpdir(), 'cq-s3rver-'));
  await writeFile(join(dir, 'cors.xml'), S3_CORS);
  const port = await freePort();
  const root = `http://127.0.0.1:${port}/`;
  const base = `${root}${S3_BUCKET}/`;
  const p = await startProcess(
    name,
    process.execPath,
    [
      bin,
      '-d',
      join(dir, 'data'),
      '-a',
      '127.0.0.1',
      '-p',
      String(port),
      '--silent',
      '--configure-bucket',
      S3_BUCKET,
      join(dir, 'cors.xml'),
    ],
    root,
  ).catch(async (e: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw e;
  });
  const stop = async () => {
    await p.stop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const files = await listFiles(site);
    const types = await guessTypes(files.map((f) => extname(f)));
    // A few at a time, as `aws s3 sync` does.
    let next = 0;
    const put = async () => {
      while (next < files.length) {
        const f = files[next++]!;
        const key = f.split('/').map(encodeURIComponent).join('/');
        const type = types.get(extname(f));
        const body = await readFile(join(site, f));
        // s3rver on a loaded 2-core CI dropped a connection mid-upload ("fetch failed"): retry, as the AWS CLI does.
        for (let attempt = 1; ; attempt++) {
          try {
            const res = await fetch(base + key, { method: 'PUT', body, headers: type ? { 'Content-Type': type } : {} });
            if (!res.ok) throw new Error(`S3 PUT ${key}: ${res.status} ${await res.text()}`);
            await res.arrayBuffer();
            break;
          } catch (e) {
            if (attempt >= 4) throw e;
            await new Promise((r) => setTimeout(r, 500 * attempt));
          }
        }
      }
    };
    await Promise.all([put(), put(), put(), put()]);
  } catch (e) {
    await stop();
    throw e;
  }
  return { name, url: `${base}index.html`, rangeSupported: true, stop };
}

/** Every file under `root`, as paths relative to it with "/". */
async function listFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string) => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.isFile()) out.push(relative(root, p).split(sep).join('/'));
    }
  };
  await walk(root);
  return out.sort();
}

/**
 * Content types by extension as the AWS CLI guesses them (Python's
 * `mimetypes.guess_type`, which reads /etc/mime.types); /etc/mime.types
 * alone when python3 is absent. Unknown extensions get none (S3 then stores
 * binary/octet-stream).
 */
async function guessTypes(exts: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(exts.filter(Boolean))];
  const map = new Map<string, string>();
  const py = findProgram('python3');
  if (py) {
    try {
      const { stdout } = await exec(py, [
        '-c',
        'import json,mimetypes,sys\nprint(json.dumps({e: mimetypes.guess_type("f"+e)[0] for e in sys.argv[1:]}))',
        ...unique,
      ]);
      for (const [e, t] of Object.entries(JSON.parse(stdout) as Record<string, string | null>)) if (t) map.set(e, t);
      return map;
    } catch {
      /* fall through */
    }
  }
  const etc = etcMimeTypes();
  for (const e of unique) {
    const t = etc.get(e.slice(1).toLowerCase());
    if (t) map.set(e, t);
  }
  return map;
}

// ---------------------------------------------------------------- the matrix

/** A starter whose host's stop() may be called more than once (by the test and by cleanup). */
function stoppableOnce(start: HostStarter): HostStarter {
  return async (site) => {
    const h = await start(site);
    if (isSkipped(h)) return h;
    let stopping: Promise<void> | undefined;
    const stop = h.stop;
    return { ...h, stop: () => (stopping ??= stop()) };
  };
}

/** Every host, by name. */
export const HOSTS: Record<string, HostStarter> = Object.fromEntries(
  Object.entries({
    'vite-dev': startViteDev,
    'vite-preview': startVitePreview,
    nginx: (site: string) => startNginx(site),
    'nginx+mjs': (site: string) => startNginx(site, { extraMjs: true }),
    apache: startApache,
    caddy: startCaddy,
    lighttpd: startLighttpd,
    sirv: startSirv,
    'http-server': startHttpServer,
    serve: startServe,
    s3: startS3,
    python: startPython,
  }).map(([name, start]) => [name, stoppableOnce(start)]),
);

/** The hosts run when CQ_HOSTS is unset. */
export const DEFAULT_HOSTS = ['vite-dev', 'vite-preview', 'nginx', 's3', 'serve', 'http-server', 'sirv', 'python'];

/** The host names CQ_HOSTS asks for (comma list, or `all`); throws on an unknown name. */
export function selectedHosts(value = process.env.CQ_HOSTS): string[] {
  if (!value || !value.trim()) return DEFAULT_HOSTS;
  if (value.trim() === 'all') return Object.keys(HOSTS);
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(n in HOSTS));
  if (unknown.length)
    throw new Error(
      `CQ_HOSTS names unknown host(s) ${unknown.join(', ')}; known: ${Object.keys(HOSTS).join(', ')}, or all`,
    );
  return names;
}

/** Whether a host's program is present, without starting it (for test titles). */
export function hostInstalled(name: string): string | null {
  const need: Record<string, () => boolean> = {
    nginx: () => findProgram('nginx') !== null && existsSync('/etc/nginx/mime.types'),
    'nginx+mjs': () => findProgram('nginx') !== null && existsSync('/etc/nginx/mime.types'),
    apache: () => findProgram('apache2', 'httpd') !== null && existsSync('/etc/apache2/mods-enabled'),
    caddy: () => findProgram('caddy') !== null,
    lighttpd: () => findProgram('lighttpd') !== null,
    python: () => findProgram('python3') !== null,
    sirv: () => npmBin('sirv-cli', 'sirv') !== null,
    'http-server': () => npmBin('http-server') !== null,
    serve: () => npmBin('serve') !== null,
    s3: () => existsSync(join(REPO, 'node_modules/s3rver/package.json')),
    'vite-dev': () => existsSync(join(REPO, 'node_modules/vite/package.json')),
    'vite-preview': () => existsSync(join(REPO, 'node_modules/vite/package.json')),
  };
  const missing: Record<string, string> = {
    nginx: 'nginx not installed',
    'nginx+mjs': 'nginx not installed',
    apache: 'apache2 not installed',
    caddy: 'caddy not installed',
    lighttpd: 'lighttpd not installed',
    python: 'python3 not installed',
    sirv: 'sirv-cli not installed',
    'http-server': 'http-server not installed',
    serve: 'serve not installed',
    s3: 's3rver not installed',
    'vite-dev': 'vite not installed',
    'vite-preview': 'vite not installed',
  };
  return need[name]?.() ? null : (missing[name] ?? `${name} unknown`);
}
