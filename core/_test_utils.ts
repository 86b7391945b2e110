/**
 * Fakes that the unit tests of `core/` share.
 *
 * @module
 */

import type { Message } from "../rpc/message.ts";
import type { Caller } from "./process.ts";

/** A caller that keeps what it is handed; set `hasEnded` to end it. */
export type RecordingCaller = Caller & { got: Message[]; hasEnded: boolean };

/** A caller named `name` that keeps every message it is handed in `got`. */
export function recordingCaller(name = "console"): RecordingCaller {
  return {
    name,
    children: new Set(),
    hasEnded: false,
    got: [],
    deliver(m) {
      this.got.push(m);
    },
  };
}
