/**
 * `wasi:clocks`: the wall clock and the monotonic clock with its pollables.
 *
 * @module
 */

import { Pollable } from "./poll.ts";

const origin = performance.timeOrigin;

/** Nanoseconds on the monotonic clock. */
function nowNs(): bigint {
  return BigInt(Math.round((origin + performance.now()) * 1e6));
}

/** A pollable that becomes ready at `deadline` (ns on the monotonic clock). */
function until(deadline: bigint): Pollable {
  return new Pollable(
    () => nowNs() >= deadline,
    () =>
      new Promise((resolve) => {
        const ms = Number(deadline - nowNs()) / 1e6;
        setTimeout(resolve, Math.min(2 ** 31 - 1, Math.max(0, Math.ceil(ms))));
      }),
    Number(deadline) / 1e6 - origin,
  );
}

/** Builds the `wasi:clocks/*` interfaces. */
export function clockInterfaces(): Record<string, unknown> {
  return {
    "wasi:clocks/monotonic-clock": {
      now: nowNs,
      resolution: () => 1000n,
      subscribeInstant: (when: bigint) => until(when),
      subscribeDuration: (d: bigint) => until(nowNs() + d),
    },
    "wasi:clocks/wall-clock": {
      now() {
        const ms = Date.now();
        return { seconds: BigInt(Math.floor(ms / 1000)), nanoseconds: (ms % 1000) * 1e6 };
      },
      resolution: () => ({ seconds: 0n, nanoseconds: 1e6 }),
    },
  };
}
