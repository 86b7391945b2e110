/**
 * Fakes that the unit tests of `core/` share.
 *
 * @module
 */

import type { Message } from "../rpc/message.ts";
import type { Caller } from "./processes/process.ts";

/** A caller that keeps what it is handed. */
export type RecordingCaller = Caller & { got: Message[] };

/**
 * A caller named `name` that keeps every message it is handed in `got`;
 * `ended`: one that has ended already (its late answers are dropped).
 */
export function recordingCaller(name = "console", ended = false): RecordingCaller {
  return {
    name,
    children: new Set(),
    hasEnded: ended,
    got: [],
    deliver(m) {
      this.got.push(m);
    },
  };
}
