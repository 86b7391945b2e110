/**
 * A caller's calls by the id of its request, for `core.cancel`: while the
 * process of a call is being started (loading, placing), and once it runs.
 *
 * @module
 */

import type { Id } from "../../rpc/message.ts";
import type { Caller, Process } from "../processes/process.ts";

/** Finds a caller's call by its request id, starting or running. */
export class CallsById {
  /**
   * Calls being started, by request id, per caller (keyed by its
   * `children`, which `core.call`'s relay shares).
   */
  private pending = new Map<Set<Process>, Map<Id, Promise<Process>>>();

  /** Records that `caller`'s call `id` is being started, until `started` settles. */
  track(caller: Caller, id: Id, started: Promise<Process>): void {
    const key = caller.children;
    let calls = this.pending.get(key);
    if (!calls) this.pending.set(key, calls = new Map());
    calls.set(id, started);
    const done = () => {
      calls.delete(id);
      if (calls.size === 0) this.pending.delete(key);
    };
    started.then(done, done);
  }

  /**
   * `caller`'s call `id` while its process is still being started (a promise
   * that settles once it runs or fails), else undefined.
   */
  starting(caller: Caller, id: Id): Promise<Process> | undefined {
    return this.pending.get(caller.children)?.get(id);
  }

  /**
   * The process of `caller`'s call `id` while it runs; undefined when there
   * is none (answered, ended, not started yet, or a core method).
   * Synchronous, so that a caller's messages take effect in the order it
   * wrote them.
   */
  running(caller: Caller, id: Id): Process | undefined {
    for (const c of caller.children) if (c.callerId === id && !c.hasEnded) return c;
    return undefined;
  }
}
