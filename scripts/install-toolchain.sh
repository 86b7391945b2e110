#!/usr/bin/env bash
# Installs what core/cargo/toolchain.ts needs to build plugins (Rust source ->
# WASI component) on a Debian 12 machine without crates.io or rustup
# downloads: Debian's rustc/cargo 1.96 with the matching std source (for
# -Zbuild-std), wasi-libc, wasm-ld, the crates plugins may use, the author's
# tools of the same rustc (cargo clippy, cargo fmt, rust-analyzer); and
# bubblewrap, the sandbox every build runs in (core/cargo/build_jail.ts);
# clang's wasm32 builtins (libclang-rt-14-dev-wasm32), without which C
# plugins link only with -nodefaultlibs -lc and fail on scanf's __multi3
# (docs/languages.md); Duktape's source (duktape-dev), the engine of
# TypeScript plugins (core/typescript/).
# With --with-test-tools (npm test) also tmux, the terminal the console's
# tests type into (tests/console_test.ts), nats-server, which the
# workers' test runs (tests/nats_workers_test.ts), and wabt, whose wat2wasm
# compiles the attack modules of tests/host_call_bounds_test.ts. Idempotent: installs only the
# packages that are missing (with a real wasm32-wasip2 target, only bubblewrap
# and the test tools), and prints nothing when none is (the launcher runs it
# before every command that builds). Shows apt-get's progress (downloads,
# unpacking, setting up). Runs apt-get as root, or through sudo.
set -euo pipefail

PACKAGES=(
  rustc-web cargo-web rust-web-src wasi-libc lld
  librust-serde-json-dev librust-serde-derive-dev librust-syn-dev
  librust-quote-dev librust-proc-macro2-dev
  clang llvm librust-cc-dev
  libclang-rt-14-dev-wasm32 duktape-dev
  rust-web-clippy rustfmt-web rust-web-analyzer
)

# Builds run build scripts and proc macros: always in bubblewrap.
SANDBOX=(bubblewrap)
if [ "${1:-}" = "--with-test-tools" ]; then
  SANDBOX+=(tmux nats-server wabt)
fi

say() { echo "install-toolchain: $*" >&2; }

if command -v rustup >/dev/null 2>&1 &&
  rustup target list --installed 2>/dev/null | grep -qx 'wasm32-wasip2'; then
  say "rustup has the wasm32-wasip2 target: only the build sandbox is needed"
  PACKAGES=("${SANDBOX[@]}")
else
  PACKAGES+=("${SANDBOX[@]}")
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg -s "$pkg" 2>/dev/null | grep -qx 'Status: install ok installed'; then
    missing+=("$pkg")
  fi
done
if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    say "not root and no sudo: as root, run apt-get install ${missing[*]}"
    exit 1
  fi
  as_root=(sudo)
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
# apt-get's output goes to the log; its progress lines are shown as they come.
run() {
  set +o pipefail
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive "$@" 2>&1 | tee "$log" |
    { grep --line-buffered -E '^(Get:|Fetched|Unpacking|Setting up)' | sed -u 's/^/  /' >&2; true; }
  local status=${PIPESTATUS[0]}
  set -o pipefail
  if [ "$status" -ne 0 ]; then
    cat "$log" >&2
    say "failed: $*"
    exit 1
  fi
}

say "apt-get update"
run apt-get update
say "apt-get install ${missing[*]}"
run apt-get install -y "${missing[@]}"
say "done: installed ${missing[*]}"
