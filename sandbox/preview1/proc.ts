/**
 * Arguments, environment, clocks, randomness and exit for preview 1, and
 * the functions no Sausage process has a use for (`proc_raise`, the
 * `sock_*` calls on descriptors that are never sockets), answered as
 * wasmtime answers them.
 *
 * @module
 */

import type { Preview1Context, Preview1Fn } from "./context.ts";
import { ERRNO, Errno } from "./errno.ts";
import { encodeAll } from "./memory.ts";
import { GuestExit } from "../wasi/cli.ts";
import { nextTurn } from "../guest/event_turns.ts";

const origin = performance.timeOrigin;

/**
 * The most bytes `random_get` fills in one turn of the event loop (it must
 * fill the whole buffer, so a larger one is filled a chunk a turn).
 */
export const RANDOM_CHUNK = 2 ** 20;

/** Fills `bytes` from the Web Crypto source (64 KiB a call, its limit). */
function fillRandom(bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length; at += 65536) {
    crypto.getRandomValues(bytes.subarray(at, Math.min(bytes.length, at + 65536)));
  }
}

/** Nanoseconds on the monotonic clock (the same clock as the component path's). */
export function monotonicNs(): bigint {
  return BigInt(Math.round((origin + performance.now()) * 1e6));
}

/** What a process's arguments and environment are. */
export interface ProcInputs {
  args: string[];
  env: [string, string][];
}

/** The sizes and bytes of a list of C strings. */
function cStrings(list: string[]): { items: Uint8Array[]; size: number } {
  const items = encodeAll(list);
  return { items, size: items.reduce((n, s) => n + s.length + 1, 0) };
}

/** `args_*`, `environ_*`, `clock_*`, `random_get`, `proc_*` and `sock_*` of one process. */
export function procOps(ctx: Preview1Context, inputs: ProcInputs): Record<string, Preview1Fn> {
  const { mem, fds } = ctx;
  let args: ReturnType<typeof cStrings> | null = null;
  let env: ReturnType<typeof cStrings> | null = null;
  const argList = () => (args ??= cStrings(inputs.args));
  const envList = () => (env ??= cStrings(inputs.env.map(([k, v]) => `${k}=${v}`)));
  const notSocket = (fd: number) => {
    fds.get(fd);
    return ERRNO.notsock;
  };

  return {
    args_sizes_get(argc: number, size: number) {
      const a = argList();
      mem.u32(argc, a.items.length);
      mem.u32(size, a.size);
      return 0;
    },
    args_get(ptrs: number, buf: number) {
      mem.stringList(argList().items, ptrs, buf);
      return 0;
    },
    environ_sizes_get(count: number, size: number) {
      const e = envList();
      mem.u32(count, e.items.length);
      mem.u32(size, e.size);
      return 0;
    },
    environ_get(ptrs: number, buf: number) {
      mem.stringList(envList().items, ptrs, buf);
      return 0;
    },
    clock_res_get(id: number, out: number) {
      if (id > 3) throw new Errno(ERRNO.inval);
      if (id > 1) throw new Errno(ERRNO.badf);
      mem.u64(out, 1000n);
      return 0;
    },
    clock_time_get(id: number, _precision: bigint, out: number) {
      if (id === 0) mem.u64(out, BigInt(Math.round((origin + performance.now()) * 1e6)));
      else if (id === 1) mem.u64(out, monotonicNs());
      else if (id > 3) throw new Errno(ERRNO.inval);
      else throw new Errno(ERRNO.badf);
      return 0;
    },
    random_get(buf: number, len: number) {
      mem.check(buf, len);
      if (len <= RANDOM_CHUNK) {
        fillRandom(mem.bytes().subarray(buf, buf + len));
        return 0;
      }
      // A large buffer is filled a chunk a turn: the other processes run in between.
      return (async () => {
        for (let at = 0; at < len; at += RANDOM_CHUNK) {
          if (at > 0) await new Promise<void>((r) => nextTurn(r));
          fillRandom(mem.bytes().subarray(buf + at, buf + Math.min(len, at + RANDOM_CHUNK)));
        }
        return 0;
      })();
    },
    proc_exit(code: number): never {
      throw new GuestExit(code >>> 0);
    },
    proc_raise() {
      return ERRNO.nosys;
    },
    sock_accept: notSocket,
    sock_recv: notSocket,
    sock_send: notSocket,
    sock_shutdown: notSocket,
  };
}
