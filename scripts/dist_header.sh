#!/usr/bin/env bash
# sausage: the whole of Sausage in one file: this shell header, then a gzip'd
# tar of the pinned Deno, the program with its npm dependencies, the SDK, the
# templates, the example world and the toolchain install script.
# The first start of a version unpacks it into the cache, keyed by the
# archive's checksum; every start after that runs from there.
# Made by `deno task dist` (scripts/dist.ts); see docs/install.md.
set -euo pipefail
HASH=@HASH@
OFFSET=@OFFSET@
SELF="$0"
case "$SELF" in /*) ;; *) SELF="$PWD/${SELF#./}" ;; esac
if [ -n "${SAUSAGE_CACHE_DIR:-}" ]; then BASE="$SAUSAGE_CACHE_DIR/dist"
elif [ -n "${XDG_CACHE_HOME:-}" ]; then BASE="$XDG_CACHE_HOME/sausage/dist"
else BASE="${HOME:-/tmp}/.cache/sausage/dist"; fi
DIR="$BASE/$HASH"

# A usable unpack: the marker (written last, after the checksums were
# checked) and the files every start needs. Shell tests only: no subprocess.
usable() {
  [ -f "$1/.dist/ok" ] && [ -x "$1/node_modules/.bin/deno" ] && [ -f "$1/main.ts" ] &&
    [ -f "$1/sausage" ] && [ -f "$1/.dist/MANIFEST" ]
}
# Every file's checksum, against the manifest (on unpack, and when asked).
verified() {
  (cd "$1" && sha256sum --quiet --strict -c .dist/MANIFEST) >/dev/null 2>&1
}
payload() { tail -c "+$((10#$OFFSET + 1))" "$SELF"; }

unpack() {
  local t tmp sum old
  for t in tail tar gzip sha256sum mktemp; do
    command -v "$t" >/dev/null 2>&1 ||
      { echo "sausage: unpacking needs $t, which is not installed" >&2; exit 1; }
  done
  mkdir -p "$BASE"
  # Left by a run that was killed while it unpacked.
  find "$BASE" -maxdepth 1 -name '.unpack-*' -mmin +60 -exec rm -rf {} + 2>/dev/null || true
  echo "sausage: first start of this version: unpacking into $DIR" >&2
  sum="$(payload | sha256sum)"
  sum="${sum%% *}"
  if [ "$sum" != "$HASH" ]; then
    echo "sausage: $SELF is damaged (its archive's checksum is $sum, not $HASH): download it again" >&2
    exit 1
  fi
  tmp="$(mktemp -d "$BASE/.unpack-$HASH.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  payload | tar -xzf - -C "$tmp" --no-same-owner
  if ! verified "$tmp"; then
    echo "sausage: unpacking into $tmp gave files that differ from the manifest (a full disk?)" >&2
    exit 1
  fi
  echo "$HASH" >"$tmp/.dist/ok"
  # Into place with one rename. When another first start got there first,
  # its unpack is used; a damaged one is moved aside and replaced.
  if ! mv -T "$tmp" "$DIR" 2>/dev/null; then
    if usable "$DIR" && { [ -z "${1:-}" ] || verified "$DIR"; }; then
      rm -rf "$tmp"
    else
      old="$BASE/.unpack-$HASH.damaged.$$"
      mv -T "$DIR" "$old" 2>/dev/null || true
      mv -T "$tmp" "$DIR" 2>/dev/null || rm -rf "$tmp"
      rm -rf "$old"
    fi
  fi
  trap - EXIT
  usable "$DIR" || { echo "sausage: could not unpack into $DIR" >&2; exit 1; }
}

if ! usable "$DIR"; then
  unpack
elif [ -n "${SAUSAGE_DIST_VERIFY:-}" ] && ! verified "$DIR"; then
  echo "sausage: $DIR differs from its manifest: unpacking again" >&2
  unpack check
fi
# The stable path of this file: the world's cargo runner (`sausage test`).
export SAUSAGE_DIST_FILE="$SELF" SAUSAGE_DIST_HASH="$HASH"
# The unpacked launcher, read into this shell (one bash fewer): it finds its
# folder from BASH_SOURCE and ends by exec'ing the unpacked Deno.
. "$DIR/sausage" "$@"
exit 127
