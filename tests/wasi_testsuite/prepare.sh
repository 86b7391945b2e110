#!/usr/bin/env bash
# Prepares a local copy of WebAssembly/wasi-testsuite's prebuilt preview-1
# cases (branch prod/testsuite-base) for `deno task wasi-testsuite`, outside
# this repository. The runner itself fetches nothing.
#
#   tests/wasi_testsuite/prepare.sh                 # clones from GitHub
#   tests/wasi_testsuite/prepare.sh /path/to/repo   # a clone or bare git dir already here
#
# The copy goes to $SAUSAGE_WASI_TESTSUITE, else <cache>/wasi-testsuite
# (<cache> is $SAUSAGE_CACHE_DIR, else $XDG_CACHE_HOME/sausage, else
# ~/.cache/sausage): the wasm32-wasip1 folders of the AssemblyScript, C and
# Rust suites, their specs (.json) and fixtures, and COMMIT with the commit.
set -euo pipefail

BRANCH=prod/testsuite-base
URL=https://github.com/WebAssembly/wasi-testsuite
CACHE=${SAUSAGE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/sausage}
DEST=${SAUSAGE_WASI_TESTSUITE:-$CACHE/wasi-testsuite}
SUITES=(tests/assemblyscript/testsuite/wasm32-wasip1 tests/c/testsuite/wasm32-wasip1
  tests/rust/testsuite/wasm32-wasip1)

src=${1:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$src" ]; then
  git clone --quiet --depth 1 --branch "$BRANCH" "$URL" "$tmp/repo"
  src=$tmp/repo
fi
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
  gitdir=$(git -C "$src" rev-parse --absolute-git-dir)
else
  echo "prepare.sh: $src is not a git repository of wasi-testsuite" >&2
  exit 2
fi
ref=$BRANCH
git --git-dir "$gitdir" rev-parse --verify --quiet "$ref^{commit}" >/dev/null || ref=origin/$BRANCH
commit=$(git --git-dir "$gitdir" rev-parse "$ref^{commit}")

mkdir -p "$tmp/out"
git --git-dir "$gitdir" archive "$commit" -- "${SUITES[@]}" | tar -x -C "$tmp/out"
echo "$commit" >"$tmp/out/COMMIT"
rm -rf "$DEST"
mkdir -p "$(dirname "$DEST")"
mv "$tmp/out" "$DEST"
echo "wasi-testsuite $BRANCH at $commit: $(find "$DEST" -name '*.wasm' | wc -l) cases in $DEST"
