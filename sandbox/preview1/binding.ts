/**
 * One process's `wasi_snapshot_preview1` import object: every function of
 * preview 1 (`fd_ops.ts`, `path_ops.ts`, `poll.ts`, `proc.ts`), each turning
 * the errors it meets into an errno (`errno.ts`). Functions that may wait
 * (file and folder operations, stdin, `poll_oneoff`) are
 * `WebAssembly.Suspending`: while one waits on a promise, the guest is
 * suspended and the sandbox's event loop runs on; one that can answer at
 * once (a queued stdin line, stdout) does, without a suspension. Only the
 * functions the module imports are made.
 *
 * @module
 */

import type { Preview1Context, Preview1Fn } from "./context.ts";
import { errnoOf } from "./errno.ts";
import { fdOps } from "./fd_ops.ts";
import { pathOps } from "./path_ops.ts";
import { pollOps } from "./poll.ts";
import { type ProcInputs, procOps } from "./proc.ts";
import { PREVIEW1_MODULE, WAITING } from "./names.ts";

export { PREVIEW1_MODULE };

/** JSPI's wrapper for an import that may return a promise (not yet in TypeScript's lib). */
const Suspending = (WebAssembly as unknown as { Suspending: new (f: Preview1Fn) => object })
  .Suspending;

/** An errno on failure, for a function that answers at once. */
function now(f: Preview1Fn): Preview1Fn {
  return (...args) => {
    try {
      return f(...args);
    } catch (e) {
      return errnoOf(e);
    }
  };
}

/** An errno on failure, for a function that may answer with a promise. */
function later(f: Preview1Fn): Preview1Fn {
  return (...args) => {
    try {
      const r = f(...args);
      return r instanceof Promise ? r.then(undefined, errnoOf) : r;
    } catch (e) {
      return errnoOf(e);
    }
  };
}

/**
 * The import object's `wasi_snapshot_preview1` for one process: the
 * functions in `names` (those the module imports). Call it inside
 * `GuestControl.instantiate`, so that the suspending ones are bound to the
 * guest (a kill fails their waits at once).
 */
export function preview1Imports(
  ctx: Preview1Context,
  inputs: ProcInputs,
  names: readonly string[],
): Record<string, unknown> {
  const all: Record<string, Preview1Fn> = {
    ...fdOps(ctx),
    ...pathOps(ctx),
    ...pollOps(ctx),
    ...procOps(ctx, inputs),
  };
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const f = all[name];
    if (!f) continue; // not preview 1: instantiation names it
    out[name] = WAITING.has(name) ? new Suspending(later(f)) : now(f);
  }
  return out;
}
