// Builds a Go program against Debian's gocql (golang-github-gocql-gocql-dev under /usr/share/gocode) offline, in
// GOPATH mode, caching the binary under os.tmpdir() by the hash of its source and the Go version: only the first
// run pays for the build. Used by test/gocql-driver.test.ts and bench/arrow-twin.ts --gocql-scan.

import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const GOPATH = '/usr/share/gocode';

/** `go version`, or null when Go is not installed. */
export function goVersion(): string | null {
  try {
    return execFileSync('go', ['version'], { encoding: 'utf8', timeout: 30_000 }).trim();
  } catch {
    return null;
  }
}

function goEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GO111MODULE: 'off',
    GOPATH,
    GOFLAGS: '',
    GOPROXY: 'off',
    GOCACHE: process.env.GOCACHE ?? join(tmpdir(), 'pmemcql-gocql-gocache'),
  };
}

/** Builds `source` (one main.go) once per (source, Go version) and returns the cached binary's path. */
export async function buildGoBinary(source: string, name: string): Promise<string> {
  const hash = createHash('sha256')
    .update(readFileSync(source))
    .update(goVersion() ?? '')
    .digest('hex')
    .slice(0, 16);
  const dir = join(tmpdir(), `pmemcql-${name}-${hash}`);
  const binary = join(dir, name);
  if (existsSync(binary)) return binary;
  mkdirSync(dir, { recursive: true });
  const partial = `${binary}.${process.pid}.tmp`;
  await new Promise<void>((ok, fail) => {
    execFile(
      'go',
      ['build', '-o', partial, source],
      { cwd: dir, env: goEnv(), timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) {
          fail(
            new Error(
              `go build of ${source} failed (needs golang-github-gocql-gocql-dev under ${GOPATH}; ` +
                `run scripts/setup.sh as root): ${err.message}\n${stdout}${stderr}`,
            ),
          );
        } else {
          ok();
        }
      },
    );
  });
  renameSync(partial, binary);
  return binary;
}
