/**
 * The WASI imports whose host functions may return a promise. jco wraps them
 * with JSPI (`WebAssembly.Suspending`), so the guest waits while the event
 * loop runs on. A host function that can await must be listed here; one that
 * never does is cheaper outside the list. Names are unversioned, as jco wants.
 *
 * @module
 */

/** Imports that may wait: JSPI suspends the guest while the host awaits them. */
export const ASYNC_IMPORTS = [
  "wasi:io/poll#poll",
  "wasi:io/poll#[method]pollable.block",
  "wasi:io/streams#[method]input-stream.blocking-read",
  "wasi:io/streams#[method]input-stream.blocking-skip",
  "wasi:io/streams#[method]output-stream.blocking-flush",
  "wasi:io/streams#[method]output-stream.blocking-write-and-flush",
  "wasi:io/streams#[method]output-stream.blocking-write-zeroes-and-flush",
  "wasi:io/streams#[method]output-stream.blocking-splice",
  ...[
    "read-via-stream",
    "write-via-stream",
    "append-via-stream",
    "sync-data",
    "sync",
    "set-size",
    "set-times",
    "read",
    "write",
    "read-directory",
    "create-directory-at",
    "stat",
    "stat-at",
    "set-times-at",
    "link-at",
    "open-at",
    "readlink-at",
    "remove-directory-at",
    "rename-at",
    "symlink-at",
    "unlink-file-at",
    "metadata-hash",
    "metadata-hash-at",
  ].map((m) => `wasi:filesystem/types#[method]descriptor.${m}`),
];
