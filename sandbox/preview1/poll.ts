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
import { LAYOUT } from "./layout.ts";

/** The most subscriptions one `poll_oneoff` takes (ENOMEM past it). */
export const MAX_SUBSCRIPTIONS = 4096;

const SUB = LAYOUT.subscription.size;
const S = LAYOUT.subscription.fields;
const EVENT = LAYOUT.event.size;
const E = LAYOUT.event.fields;

/** `eventtype` values. */
export const EVENTTYPE = { clock: 0, fd_read: 1, fd_write: 2 } as const;
const { clock: CLOCK, fd_read: FD_READ, fd_write: FD_WRITE } = EVENTTYPE;

/** `subclockflags`: the timeout is absolute. */
export const SUBSCRIPTION_CLOCK_ABSTIME = 1;

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
      if (v.getUint8(at + S.tag) !== CLOCK) continue;
      const id = v.getUint32(at + S.id, true);
      const timeout = v.getBigUint64(at + S.timeout, true);
      const abs = v.getUint16(at + S.flags, true) & SUBSCRIPTION_CLOCK_ABSTIME;
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
      const type = v.getUint8(at + S.tag);
      let error = 0, nbytes = 0;
      if (type === CLOCK) {
        const d = deadlines[i];
        if (Number.isNaN(d)) error = ERRNO.inval;
        else if (now < d) continue;
      } else if (type === FD_READ || type === FD_WRITE) {
        const r = await fdEvent(type, v.getUint32(at + S.file_descriptor, true));
        if (r === null) continue;
        [error, nbytes] = r;
        v = mem.view(); // fresh after the wait (and a fenced memory throws here)
      } else error = ERRNO.inval;
      const ev = outPtr + count * EVENT;
      // Every byte of the event is written (its padding zero): nothing of before shows.
      v.setBigUint64(ev + E.userdata, v.getBigUint64(at + S.userdata, true), true);
      v.setBigUint64(ev + E.error, BigInt(error | (type << 16)), true); // error, type, padding
      v.setBigUint64(ev + E.nbytes, BigInt(nbytes), true);
      v.setBigUint64(ev + E.flags, 0n, true); // no hangup; padding
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
      if (v.getUint8(at + S.tag) !== FD_READ) continue;
      try {
        const e = fds.get(v.getUint32(at + S.file_descriptor, true));
        stdin = e.kind === "stdio" ? e.input?.whenReadable() : undefined;
      } catch { /* reported as ready */ }
    }
    if (stdin) waits.push(stdin);
    return [Promise.race(waits), () => clearTimeout(timer)] as const;
  };

  return {
    async poll_oneoff(inPtr: number, outPtr: number, n: number, nevents: number) {
      if (n === 0) throw new Errno(ERRNO.inval);
      mem.check(inPtr, n * SUB, LAYOUT.subscription.align);
      mem.check(outPtr, n * EVENT, LAYOUT.event.align);
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
