/**
 * Answers that stay in the sandbox (PROTOCOL 4.3, "nested calls"): when a
 * process calls a plugin whose process the core places in the caller's own
 * sandbox, the core names the caller in the callee's run (`replyTo`). The
 * callee's answer then goes straight to the caller's stdin, as the core
 * would have written it, and to the core flagged `local` (the core journals
 * it, ends the call and writes nothing more to the caller). That saves the
 * two wake-ups and the core's work between the callee's answer and the
 * caller's resumption: a nested call's answer no longer leaves the sandbox.
 *
 * The core still answers the caller when the call ends otherwise (cancelled,
 * ended without an answer, its time limit): those answers come tagged with
 * the callee (`replyOf`). Whichever reaches the caller first is its answer;
 * the other is dropped, so the caller never gets two.
 *
 * Only a callee that sent no request or notification of its own answers
 * locally (a leaf: `noop`, a computation, its files): what the core does for
 * a callee's message may reach the caller (a `core.notify`, data on a
 * `core.pipe`, a lock handed on), and its answer must not overtake that. A
 * callee that called anything answers through the core, behind it.
 *
 * @module
 */

import type { Id } from "../rpc/message.ts";
import { callerReply, parseLine } from "../rpc/message.ts";

/**
 * The longest answer given in the sandbox, in UTF-16 units: a longer one
 * goes through the core, which parses it anyway (here it would be parsed and
 * written once more, on the thread the sandbox's other processes share).
 */
export const LOCAL_ANSWER_MAX = 64 * 1024;

/** A callee whose answer its caller has not yet had. */
interface Pending {
  /** The caller's pid. */
  caller: string;
  /** The id of the caller's request. */
  id: Id;
  /** It sent a request or notification: its answer goes through the core, behind it. */
  viaCore: boolean;
}

/** Where a line goes: to the caller's stdin, and whether the core hears of it. */
export interface LocalAnswer {
  /** The caller's pid. */
  caller: string;
  /** The line for the caller's stdin. */
  line: string;
}

/** The pending local answers of one sandbox, by callee. */
export class LocalReplies {
  private pending = new Map<string, Pending>();
  /** Each caller's callees with a pending answer, so they go when it ends. */
  private byCaller = new Map<string, Set<string>>();

  /** How many callees wait to answer locally (bounded by the processes running). */
  get size(): number {
    return this.pending.size;
  }

  /** `callee`'s answer goes to `caller` (running here) under the caller's request `id`. */
  expect(callee: string, caller: string, id: Id): void {
    this.pending.set(callee, { caller, id, viaCore: false });
    let set = this.byCaller.get(caller);
    if (!set) this.byCaller.set(caller, set = new Set());
    set.add(callee);
  }

  /**
   * A stdout line of `callee`: when it is the callee's answer to its call and
   * its caller still waits for it, the line for the caller's stdin (the
   * answer is taken: a later one of the core is dropped); else null, and the
   * line goes to the core only.
   */
  answer(callee: string, line: string): LocalAnswer | null {
    const p = this.pending.get(callee);
    if (!p || p.viaCore || line.length > LOCAL_ANSWER_MAX) return null;
    const parsed = parseLine(line);
    if (parsed.kind === "request") {
      p.viaCore = true; // its answer must not overtake what the core does for this
      return null;
    }
    if (parsed.kind !== "response" || parsed.msg.id !== callee) return null;
    this.take(callee, p);
    return { caller: p.caller, line: JSON.stringify(callerReply(p.id, parsed.msg)) };
  }

  /**
   * A line of the core for `callee`'s caller, tagged with the callee: true
   * when the caller is to get it (it had no answer yet); false when the
   * callee's answer reached it first, and this one is dropped.
   */
  fromCore(callee: string): boolean {
    const p = this.pending.get(callee);
    if (!p) return false;
    this.take(callee, p);
    return true;
  }

  /** A process ended: the answers it waited for are dropped with it. */
  ended(pid: string): void {
    const callees = this.byCaller.get(pid);
    if (!callees) return;
    this.byCaller.delete(pid);
    for (const c of callees) this.pending.delete(c);
  }

  private take(callee: string, p: Pending): void {
    this.pending.delete(callee);
    const set = this.byCaller.get(p.caller);
    set?.delete(callee);
    if (set?.size === 0) this.byCaller.delete(p.caller);
  }
}
