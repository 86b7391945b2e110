/**
 * `poll_oneoff`: clock subscriptions (relative or absolute, realtime or
 * monotonic) and fd readiness (stdin ready when its queue has bytes or has
 * ended; files and outputs always). With nothing ready it waits on the
 * event loop (a promise: JSPI suspends the guest) for the earliest deadline
 * (one timer, whatever the count of clocks) or stdin, then reports every
 * subscription that is ready.
 *
 * Bounded by the caller: at most {@link MAX_SUBSCRIPTIONS} subscriptions a
 * call (ENOMEM past it, the errno wasmtime answers when a call's copy
 * passes its "hostcall fuel": `consume_fuel_for_array(subs)` in
 * `crates/wasi/src/preview1.rs`); they are read from the guest's memory
 * where they lie, with one array of deadlines, no object per entry; both
 * arrays are checked against memory first (out of it: a trap).
 *
 * @module
 */

import type { Preview1Context, Preview1Fn } from "./context.ts";
import { ERRNO, Errno } from "./errno.ts";
import { monotonicNs } from "./proc.ts";

/** The most subscriptions one `poll_oneoff` takes (ENOMEM past it). */
export const MAX_SUBSCRIPTIONS = 4096;

/** `subscription` and `event` sizes (both 8-aligned). */
const SUB = 48;
const EVENT = 32;

/** `eventtype` values. */
const CLOCK = 0, FD_READ = 1, FD_WRITE = 2;

/** `poll_oneoff` and `sched_yield` of one process. */
export function pollOps(ctx: Preview1Context): Record<string, Preview1Fn> {
  const { mem, fds } = ctx;

  /**
   * The deadline of each clock subscription (ms on `performance.now()`),
   * NaN for the others and for a bad clock id (reported as EINVAL).
   */
  const deadlinesOf = (ptr: number, n: number): Float64Array => {
    const v = mem.view();
    const out = new Float64Array(n).fill(NaN);
    const now = performance.now();
    let wall: number | undefined;
    let mono: bigint | undefined;
    for (let i = 0; i < n; i++) {
      const at = ptr + i * SUB;
      if (v.getUint8(at + 8) !== CLOCK) continue;
      const id = v.getUint32(at + 16, true);
      const timeout = v.getBigUint64(at + 24, true);
      const abs = v.getUint16(at + 40, true) & 1;
      if (!abs && id <= 1) out[i] = now + Number(timeout) / 1e6;
      else if (id === 0) out[i] = now + (Number(timeout) / 1e6 - (wall ??= Date.now()));
      else if (id === 1) out[i] = now + Number(timeout - (mono ??= monotonicNs())) / 1e6;
    }
    return out;
  };

  /** The readiness of fd subscription `i`: [error, nbytes], or null when not ready. */
  const fdEvent = async (type: number, fd: number): Promise<[number, number] | null> => {
    let e;
    try {
      e = fds.get(fd);
    } catch {
      return [ERRNO.badf, 0];
    }
    if (e.kind === "stdio") {
      if (type === FD_READ && !e.input) return [ERRNO.badf, 0];
      if (type === FD_WRITE && !e.output) return [ERRNO.badf, 0];
      if (type === FD_WRITE) return [0, 0];
      return e.input!.whenReadable() === undefined ? [0, 1] : null;
    }
    if (e.kind === "dir") return [ERRNO.badf, 0];
    if (type === FD_READ && e.desc.file) {
      let size = 0;
      try {
        size = await e.desc.file.size();
      } catch { /* reported as ready with nothing to read */ }
      return [0, Math.max(0, size - e.pos)];
    }
    return [0, 0];
  };

  /**
   * Writes an event for every subscription ready now, in order, straight
   * into the guest's events array; returns their count (0: none ready).
   */
  const scan = async (inPtr: number, outPtr: number, n: number, deadlines: Float64Array) => {
    let count = 0;
    const now = performance.now();
    for (let i = 0; i < n; i++) {
      const at = inPtr + i * SUB;
      let v = mem.view();
      const type = v.getUint8(at + 8);
      let error = 0, nbytes = 0;
      if (type === CLOCK) {
        const d = deadlines[i];
        if (Number.isNaN(d)) error = ERRNO.inval;
        else if (now < d) continue;
      } else if (type === FD_READ || type === FD_WRITE) {
        const r = await fdEvent(type, v.getUint32(at + 16, true));
        if (r === null) continue;
        [error, nbytes] = r;
        v = mem.view(); // fresh after the wait (and a fenced memory throws here)
      } else error = ERRNO.inval;
      const ev = outPtr + count * EVENT;
      v.setBigUint64(ev, v.getBigUint64(at, true), true);
      v.setUint32(ev + 8, 0, true);
      v.setUint16(ev + 8, error, true);
      v.setUint8(ev + 10, type);
      v.setUint32(ev + 12, 0, true);
      v.setBigUint64(ev + 16, BigInt(nbytes), true);
      v.setBigUint64(ev + 24, 0n, true);
      count++;
    }
    return count;
  };

  /**
   * Resolves at the earliest deadline (one timer), when stdin becomes
   * readable, or when the process ends; the second value cancels the timer.
   */
  const change = (inPtr: number, n: number, deadlines: Float64Array) => {
    let earliest = Infinity;
    for (const d of deadlines) if (d < earliest) earliest = d;
    const waits: Promise<void>[] = [mem.whenFenced()];
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (earliest !== Infinity) {
      const ms = Math.max(0, Math.ceil(earliest - performance.now()));
      // setTimeout's largest delay is 2^31-1 ms; a later deadline wakes then and waits again.
      waits.push(new Promise((r) => (timer = setTimeout(r, Math.min(ms, 2 ** 31 - 1)))));
    }
    const v = mem.view();
    let stdin: Promise<void> | undefined;
    for (let i = 0; i < n && !stdin; i++) {
      const at = inPtr + i * SUB;
      if (v.getUint8(at + 8) !== FD_READ) continue;
      try {
        const e = fds.get(v.getUint32(at + 16, true));
        stdin = e.kind === "stdio" ? e.input?.whenReadable() : undefined;
      } catch { /* reported as ready */ }
    }
    if (stdin) waits.push(stdin);
    return [Promise.race(waits), () => clearTimeout(timer)] as const;
  };

  return {
    async poll_oneoff(inPtr: number, outPtr: number, n: number, nevents: number) {
      if (n === 0) throw new Errno(ERRNO.inval);
      mem.check(inPtr, n * SUB, 8);
      mem.check(outPtr, n * EVENT, 8);
      mem.check(nevents, 4, 4);
      if (n > MAX_SUBSCRIPTIONS) throw new Errno(ERRNO.nomem);
      const deadlines = deadlinesOf(inPtr, n);
      let count = await scan(inPtr, outPtr, n, deadlines);
      while (count === 0) {
        const [wait, cancel] = change(inPtr, n, deadlines);
        try {
          await wait;
        } finally {
          cancel();
        }
        count = await scan(inPtr, outPtr, n, deadlines);
      }
      mem.u32(nevents, count);
      return 0;
    },

    sched_yield() {
      return 0;
    },
  };
}
