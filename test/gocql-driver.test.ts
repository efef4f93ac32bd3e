// gocql (Debian's golang-github-gocql-gocql-dev 1.3.2, built offline with golang-go in GOPATH mode) against the
// real server. test/gocql/main.go runs the same checks once per connection profile (auto-negotiated protocol,
// v4, v4 + snappy, v3) and prints {"checks": {"<profile>/<check>": "ok" | "<error>"}, "probes": ..., "info": ...};
// each check is one `it` here. Probes are known server gaps: printed, and expected to fail. The binary is cached under
// os.tmpdir() by the hash of its source and the Go version, so only the first run pays for the build.
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGoBinary, goVersion } from '../bench/support/go-build.js';
import { reportIfDied, type ServerProcess, startServer } from './support/server-process.js';

const SOURCE = resolve(import.meta.dirname, 'gocql/main.go');

const PROFILES = ['auto', 'v4', 'v4snappy', 'v3'];
const CHECKS = [
  'connect',
  'protocol_version',
  'system_local',
  'create_schema',
  'schema_agreement',
  'insert_prepared',
  'select_by_key',
  'paging',
  'batch',
  'lwt',
  'counter',
  'extra_types',
  'unset_timestamp_ttl',
  'large_value',
  'tracing',
  'error_codes',
  'keyspace_metadata',
  'token_aware_routing',
  'drop_keyspace',
  'lwt_batch',
  'tuple_literal_with_bind_markers',
];
// Known server gaps gocql runs into (docs/clients.md): `it.fails` until fixed, so a fix shows up as a failure
// here that asks for the probe to become a check in test/gocql/main.go and CHECKS.
const PROBES: string[] = [];

interface Summary {
  checks: Record<string, string>;
  probes: Record<string, string>;
  info: Record<string, unknown>;
}

const GO_VERSION = goVersion();

async function runChecker(binary: string, port: number): Promise<{ summary: Summary; stderr: string }> {
  return await new Promise((ok, fail) => {
    execFile(binary, [String(port)], { timeout: 45_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      // exit code 1 means "some check failed": the JSON still says which
      const line = stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .at(-1);
      if (line === undefined) {
        fail(new Error(`gocql checker printed no JSON (${err?.message ?? 'exit 0'})\n${stderr.slice(-6000)}`));
        return;
      }
      ok({ summary: JSON.parse(line) as Summary, stderr });
    });
  });
}

let server: ServerProcess | undefined;
let summary: Summary = { checks: {}, probes: {}, info: {} };
let stderr = '';

// Skipped, with the reason in its name, only when the Go toolchain is missing.
const SUITE =
  GO_VERSION === null ? 'gocql driver (skipped: `go` is not installed; apt-get install golang-go)' : 'gocql driver';

describe.skipIf(GO_VERSION === null)(SUITE, () => {
  beforeAll(async () => {
    const binary = await buildGoBinary(SOURCE, 'gocql-check');
    server = await startServer();
    ({ summary, stderr } = await runChecker(binary, server.port));
    const probes = Object.entries(summary.probes).filter(([, v]) => v !== 'ok');
    if (probes.length > 0) {
      console.warn(
        `gocql probes (known gaps, expected to fail):\n${probes.map(([k, v]) => `  ${k}: ${v}`).join('\n')}`,
      );
    }
  }, 110_000);

  afterAll(async () => {
    reportIfDied(server);
    await server?.stop();
  });

  for (const profile of PROFILES) {
    describe(profile, () => {
      for (const check of CHECKS) {
        it(check, () => {
          const name = `${profile}/${check}`;
          const outcome = summary.checks[name];
          expect(outcome, `check ${name} did not run\n${stderr.slice(-4000)}`).toBeDefined();
          expect(outcome, `check ${name} failed`).toBe('ok');
        });
      }
    });
  }

  for (const name of PROBES) {
    it.fails(`known gap: ${name}`, () => {
      for (const profile of PROFILES) expect(summary.probes[`${profile}/${name}`]).toBe('ok');
    });
  }

  it('runs exactly the checks listed here', () => {
    const expected = PROFILES.flatMap((p) => CHECKS.map((c) => `${p}/${c}`)).sort();
    expect(Object.keys(summary.checks).sort()).toEqual(expected);
    const probes = PROFILES.flatMap((p) => PROBES.map((c) => `${p}/${c}`)).sort();
    expect(Object.keys(summary.probes).sort()).toEqual(probes);
  });

  it('negotiates protocol v4 (gocql 1.3.2 speaks up to v4) and compresses frames with snappy', () => {
    expect(summary.info.auto_protocol_versions).toEqual([4]);
    expect(summary.info.v3_protocol_versions).toEqual([3]);
    expect(summary.info.v4snappy_compressed_frames as number).toBeGreaterThan(0);
    expect(summary.info.v4_compressed_frames).toBe(0);
  });
});
