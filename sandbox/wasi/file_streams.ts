/**
 * The byte sources and sinks behind a file's `read-via-stream`,
 * `write-via-stream` and `append-via-stream`, over any mount's file handle.
 *
 * @module
 */

import type { FileHandle } from "../../vfs/mount.ts";
import { toFsError } from "../../vfs/errno.ts";
import { HostError } from "../../rpc/errors.ts";
import { type ByteSink, type ByteSource, IoError } from "./streams.ts";

/** What a failed file operation throws to a stream: an `IoError`, or a host fault as it is (a trap). */
function streamError(e: unknown): IoError | HostError {
  return e instanceof HostError ? e : new IoError(String(e), toFsError(e).code);
}

/** How much a file stream reads ahead from a mount that answers asynchronously. */
const READ_AHEAD = 64 * 1024;

/**
 * A byte source over a file. Synchronous mounts (the disk) are read on
 * demand; asynchronous ones (the core's mounts) are read ahead in chunks, and
 * `whenReadable` resolves when a chunk has arrived.
 */
export function fileSource(file: FileHandle, start: number): ByteSource {
  let pos = start;
  let buffered: Uint8Array | null = null;
  let ended = false;
  let failure: unknown = null;
  let pending: Promise<void> | null = null;
  const take = (bytes: Uint8Array) => {
    if (bytes.length === 0) ended = true;
    else {
      buffered = bytes;
      pos += bytes.length;
    }
  };
  const fetch = (len: number): Promise<void> | undefined => {
    if (pending) return pending;
    const r = file.read(len, pos);
    if (!(r instanceof Promise)) return void take(r);
    return (pending = r.then(take, (e) => void (failure = e)).finally(() => (pending = null)));
  };
  return {
    read(max: number) {
      if (failure) throw streamError(failure);
      if (!buffered && !ended && !pending) fetch(Math.max(max, 1));
      if (buffered) {
        const chunk: Uint8Array = buffered;
        if (chunk.length <= max) buffered = null;
        else buffered = chunk.subarray(max);
        return chunk.subarray(0, Math.min(max, chunk.length));
      }
      return ended ? null : new Uint8Array(0);
    },
    whenReadable() {
      if (buffered || ended || failure) return undefined;
      return fetch(READ_AHEAD) ?? undefined;
    },
  };
}

/**
 * A byte sink over a file, at the offsets `next` hands out (null: append at
 * the end). Writes to asynchronous mounts are queued in order; a failure is
 * reported by the next write or flush.
 */
export function fileSink(file: FileHandle, next: ((n: number) => number) | null): ByteSink {
  let chain: Promise<unknown> = Promise.resolve();
  let failure: unknown = null;
  const check = () => {
    if (failure) throw streamError(failure);
  };
  return {
    write(bytes: Uint8Array) {
      check();
      const copy = bytes.slice();
      const at = next ? next(copy.length) : null;
      chain = chain.then(async () => {
        if (failure) return;
        try {
          await file.write(copy, at ?? await file.size());
        } catch (e) {
          failure = e;
        }
      });
    },
    async flush() {
      await chain;
      check();
    },
  };
}
