#!/usr/bin/env bash
# One set-up for `npm start`, `npm test` and CI: system packages (apt-get, when root and missing),
# npm packages, the native addon and the TypeScript build. Each step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

SYSTEM_PACKAGES=(libpmemobj-dev pmdk-tools python3-cassandra python3-lz4 python3-snappy python3-wcwidth docker-compose golang-go golang-github-gocql-gocql-dev)

missing=()
for p in "${SYSTEM_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "setup: installing system packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup: missing system packages: ${missing[*]} (run as root, or: sudo apt-get install ${missing[*]})" >&2
    dpkg-query -W libpmemobj-dev >/dev/null 2>&1 || exit 1
  fi
fi

# npm packages: install when node_modules is missing or older than the lock file.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm packages"
  if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
fi

# Native addons (the pool; the watchdog of user-defined functions): rebuild when one is missing or any native
# source is newer than the pool's module.
addon=native/build/Release/pmemcql_native.node
if [ ! -f "$addon" ] || [ ! -f native/build/Release/pmemcql_watchdog.node ] || [ -n "$(find native -path native/build -prune -o -type f -newer "$addon" -print | head -1)" ]; then
  echo "setup: building the native addon"
  npx --no-install node-gyp rebuild --directory native >/dev/null
fi

# TypeScript: tsc is incremental (tsbuildinfo), so running it each time is cheap.
echo "setup: compiling TypeScript"
npx --no-install tsc -p tsconfig.json
# The server's single-file build (dist/server-bundle/, what dist/server/main.js starts; skipped when current).
node scripts/bundle-server.mjs
# tsc does not set the execute bit of the package's bin entries (npx pmemcql-stress etc.).
chmod +x dist/server/main.js dist/server/admin-cli.js dist/bench/stress.js
