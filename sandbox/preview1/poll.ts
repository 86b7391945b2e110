/**
 * `poll_oneoff`: clock subscriptions (relative or absolute, realtime or
 * monotonic) and fd readiness (stdin ready when its queue has bytes or has
 * ended; files and outputs always). With nothing ready it waits on the
 * event loop (a promise: JSPI suspends the guest) for the first timer or
 * stdin, then reports every subscription that is ready.
 *
 * @module
 */

import type { Preview1Context, Preview1Fn } from "./context.ts";
import { ERRNO, Errno } from "./errno.ts";
import { monotonicNs } from "./proc.ts";

/** One subscription, read from the guest's memory. */
interface Subscription {
  userdata: bigint;
  type: number;
  /** For a clock: when it fires, in ms on `performance.now()`. */
  deadline?: number;
  fd?: number;
  /** An error found while reading it (bad clock, bad descriptor). */
  error?: number;
}

const SUB = 48;
const EVENT = 32;

/** `poll_oneoff` and `sched_yield` of one process. */
export function pollOps(ctx: Preview1Context): Record<string, Preview1Fn> {
  const { mem, fds } = ctx;

  const read = (ptr: number, n: number): Subscription[] => {
    const v = mem.view();
    const subs: Subscription[] = [];
    for (let i = 0; i < n; i++) {
      const at = ptr + i * SUB;
      const userdata = v.getBigUint64(at, true);
      const type = v.getUint8(at + 8);
      if (type === 0) {
        const id = v.getUint32(at + 16, true);
        const timeout = v.getBigUint64(at + 24, true);
        const abs = v.getUint16(at + 40, true) & 1;
        const now = performance.now();
        let deadline: number;
        if (!abs) deadline = now + Number(timeout) / 1e6;
        else if (id === 0) deadline = now + (Number(timeout) / 1e6 - Date.now());
        else if (id === 1) deadline = now + Number(timeout - monotonicNs()) / 1e6;
        else {
          subs.push({ userdata, type, error: ERRNO.inval });
          continue;
        }
        if (id > 1) subs.push({ userdata, type, error: ERRNO.inval });
        else subs.push({ userdata, type, deadline });
      } else if (type === 1 || type === 2) {
        subs.push({ userdata, type, fd: v.getUint32(at + 16, true) });
      } else subs.push({ userdata, type, error: ERRNO.inval });
    }
    return subs;
  };

  /** The events of the subscriptions ready now: [subscription, error, nbytes, hangup]. */
  const ready = async (subs: Subscription[]) => {
    const out: [Subscription, number, number, boolean][] = [];
    const now = performance.now();
    for (const s of subs) {
      if (s.error !== undefined) out.push([s, s.error, 0, false]);
      else if (s.type === 0) {
        if (now >= s.deadline!) out.push([s, 0, 0, false]);
      } else {
        let e;
        try {
          e = fds.get(s.fd!);
        } catch {
          out.push([s, ERRNO.badf, 0, false]);
          continue;
        }
        if (e.kind === "stdio") {
          if (s.type === 1 && !e.input) out.push([s, ERRNO.badf, 0, false]);
          else if (s.type === 2 && !e.output) out.push([s, ERRNO.badf, 0, false]);
          else if (s.type === 2) out.push([s, 0, 0, false]);
          else if (e.input!.whenReadable() === undefined) out.push([s, 0, 1, false]);
        } else if (e.kind === "dir") out.push([s, ERRNO.badf, 0, false]);
        else if (s.type === 1 && e.desc.file) {
          let size = 0;
          try {
            size = await e.desc.file.size();
          } catch { /* reported as ready with nothing to read */ }
          out.push([s, 0, Math.max(0, size - e.pos), false]);
        } else out.push([s, 0, 0, false]);
      }
    }
    return out;
  };

  /** Resolves when a timer fires or stdin becomes readable. */
  const change = (subs: Subscription[]): [Promise<void>, () => void] => {
    const timers: ReturnType<typeof setTimeout>[] = [];
    const waits: Promise<void>[] = [];
    for (const s of subs) {
      if (s.type === 0 && s.deadline !== undefined) {
        waits.push(
          new Promise((r) => {
            timers.push(setTimeout(r, Math.max(0, Math.ceil(s.deadline! - performance.now()))));
          }),
        );
      } else if (s.type === 1 && s.fd !== undefined) {
        try {
          const e = fds.get(s.fd);
          const w = e.kind === "stdio" ? e.input?.whenReadable() : undefined;
          if (w) waits.push(w);
        } catch { /* reported as ready */ }
      }
    }
    return [Promise.race(waits), () => timers.forEach(clearTimeout)];
  };

  return {
    async poll_oneoff(inPtr: number, outPtr: number, n: number, nevents: number) {
      if (n === 0) throw new Errno(ERRNO.inval);
      const subs = read(inPtr, n);
      let events = await ready(subs);
      while (events.length === 0) {
        const [wait, cancel] = change(subs);
        try {
          await wait;
        } finally {
          cancel();
        }
        events = await ready(subs);
      }
      const v = mem.view();
      events.forEach(([s, error, nbytes, hangup], i) => {
        const at = outPtr + i * EVENT;
        for (let k = 0; k < EVENT; k += 4) v.setUint32(at + k, 0, true);
        v.setBigUint64(at, s.userdata, true);
        v.setUint16(at + 8, error, true);
        v.setUint8(at + 10, s.type);
        v.setBigUint64(at + 16, BigInt(nbytes), true);
        v.setUint16(at + 24, hangup ? 1 : 0, true);
      });
      mem.u32(nevents, events.length);
      return 0;
    },

    sched_yield() {
      return 0;
    },
  };
}
