#!/bin/sh
# Builds __PLUGIN__ into build/__PLUGIN__.wasm, a WASI preview-1 module
# (docs/languages.md): Debian's clang with wasi-libc (apt-get install clang
# lld wasi-libc libclang-rt-14-dev-wasm32). Without libclang-rt-14-dev-wasm32,
# add -nodefaultlibs -lc (then scanf and long double printing do not link).
# With wasi-sdk, use its clang and drop --sysroot.
set -e
cd "$(dirname "$0")"
mkdir -p build
clang --target=wasm32-wasi --sysroot=/usr -O2 -Wall -o build/__PLUGIN__.wasm main.c
echo "built build/__PLUGIN__.wasm"
