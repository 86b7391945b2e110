/**
 * Fakes that the unit tests of `core/` share.
 *
 * @module
 */

import type { Message } from "../rpc/message.ts";
import type { ProcessMessage, RunMessage, ToSandbox } from "../sandbox/hop/protocol.ts";
import type { ProcSource } from "../vfs/proc_source.ts";
import type { Caller } from "./processes/process.ts";
import type { ProcessHandler } from "./sandboxes/sandbox.ts";
import type { GuestSandbox } from "./sandboxes/guest_runner.ts";

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

/** A sandbox that records what the core sends and lets a test speak for its guests. */
export class RecordingSandbox implements GuestSandbox {
  /** The run messages, in order. */
  readonly runs: RunMessage[] = [];
  /** Everything else the core sent, in order. */
  readonly sent: ToSandbox[] = [];
  private handlers = new Map<string, ProcessHandler>();

  /** Records a run and keeps its handler for {@link guest}. */
  start(msg: RunMessage, handler: ProcessHandler): void {
    this.runs.push(msg);
    this.handlers.set(msg.pid, handler);
  }

  /** Records a message to the sandbox. */
  send(msg: ToSandbox): void {
    this.sent.push(msg);
  }

  /** A message from the guest `msg.pid`, as its sandbox passes it on. */
  guest(msg: ProcessMessage): void {
    this.handlers.get(msg.pid)!(msg);
  }

  /** The ops sent about `pid`, in order. */
  opsFor(pid: string): string[] {
    return this.sent.filter((m) => "pid" in m && m.pid === pid).map((m) => m.op);
  }
}

/** `/self` and `/proc` sources with nothing in them (tests that do not read them). */
export const noProc: ProcSource = {
  pids: () => [],
  info: () => undefined,
  log: () => undefined,
  selfFiles: () => undefined,
  coreFiles: () => ({}),
  plugins: () => [],
  pluginFile: () => Promise.reject(new Error("none")),
};
