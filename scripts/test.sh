#!/usr/bin/env bash
# npm test: installs what the tests need (npm packages, the Rust -> WASI
# component toolchain), then runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x node_modules/.bin/deno ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "test: installing npm dependencies (npm ci)" >&2
  npm ci --no-audit --no-fund --loglevel=error
fi
bash scripts/install-toolchain.sh --with-test-tools
DENO=node_modules/.bin/deno
"$DENO" check main.ts sandbox/main.ts
# The code as the style wants it: lint clean and formatted (deno.json says what is left out).
"$DENO" lint --quiet
"$DENO" fmt --check --quiet
exec "$DENO" test --quiet --allow-all --parallel "$@"
