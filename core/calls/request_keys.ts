/**
 * Calls safe to retry (PROTOCOL 4.10): a caller may give a call a request
 * key (`core.call`'s `key`, `sausage call --key`). The first call with a key
 * runs; while it runs, a retry with the key is answered at once that it is
 * still running (-32007 "in-progress"), without starting a second process;
 * once it has an answer, a retry gets that answer again (its result, or its
 * error), recorded. A call that never started (refused before its process
 * existed: a limit, no worker, no such plugin) records nothing: the key is
 * free again, and a retry runs it. Keys are kept for the most recent
 * {@link MAX_KEYS} answers, and journaled (`call-key` events) so a restarted
 * host knows them still, as long as the journal keeps those entries.
 *
 * @module
 */

import { ErrorCode, HostError, type RpcErrorObject } from "../../rpc/errors.ts";
import { parseExact } from "../../rpc/exact_json.ts";
import type { Journal } from "../journal/journal.ts";

/** The most answered keys remembered (the oldest go first). */
export const MAX_KEYS = 10_000;

/** A request key: 1 to 200 printable ASCII characters. */
const KEY = /^[\x21-\x7e]{1,200}$/;

/** Why `key` cannot be a request key, or null. */
export function keyProblem(key: unknown): string | null {
  return typeof key === "string" && KEY.test(key)
    ? null
    : `"key" must be 1 to 200 printable ASCII characters (no spaces)`;
}

/** The answer recorded for a key. */
export type KeyedAnswer = { result: unknown } | { error: RpcErrorObject };

/** One answered key, as journaled. */
interface Recorded {
  method: string;
  answer: KeyedAnswer;
}

/** Where answered keys are journaled and read back. */
export interface KeyJournal {
  /** Journals `call-key` with its fields. */
  record(fields: { key: string; method: string; answer: KeyedAnswer }): void;
  /** The recorded keys, oldest first (at most `MAX_KEYS`). */
  load(): { key: string; method: string; answer: KeyedAnswer }[];
}

/** What {@link RequestKeys.begin} found. */
export type KeyStart =
  | { state: "new"; done: (answer: KeyedAnswer | null) => void }
  | { state: "answered"; answer: KeyedAnswer };

/** The request keys of one host. */
export class RequestKeys {
  private answered = new Map<string, Recorded>();
  private running = new Map<string, { method: string; since: number }>();

  constructor(private journal: KeyJournal | null = null) {
    for (const r of journal?.load() ?? []) this.keep(r.key, { method: r.method, answer: r.answer });
  }

  private keep(key: string, r: Recorded): void {
    this.answered.delete(key);
    this.answered.set(key, r);
    while (this.answered.size > MAX_KEYS) {
      this.answered.delete(this.answered.keys().next().value!);
    }
  }

  /**
   * The start of a keyed call of `method`: new (run it, then tell `done`
   * its answer, or null when it never started), or answered before (the
   * recorded answer). Throws -32007 while the first is still running, and
   * -32602 when the key was used for another method.
   */
  begin(key: string, method: string): KeyStart {
    const problem = keyProblem(key);
    if (problem) throw new HostError("invalid-params", problem);
    const before = this.answered.get(key);
    const other = before?.method ?? this.running.get(key)?.method;
    if (other !== undefined && other !== method) {
      throw new HostError(
        "invalid-params",
        `the request key ${JSON.stringify(key)} was used for a call of ${other}: ` +
          "give each call its own key",
      );
    }
    if (before) return { state: "answered", answer: before.answer };
    const running = this.running.get(key);
    if (running) {
      throw new HostError(
        "in-progress",
        `the call with request key ${JSON.stringify(key)} is still running ` +
          `(for ${Date.now() - running.since} ms): ask again later for its answer`,
        { key, outcome: "running" },
      );
    }
    this.running.set(key, { method, since: Date.now() });
    return {
      state: "new",
      done: (answer) => {
        this.running.delete(key);
        if (answer === null) return;
        this.keep(key, { method, answer });
        try {
          this.journal?.record({ key, method, answer });
        } catch { /* the journal's own trouble is reported by it */ }
      },
    };
  }

  /** How many answered keys are remembered. */
  get size(): number {
    return this.answered.size;
  }
}

/** The largest answer journaled whole (bytes of JSON); a larger one is kept in memory only. */
export const MAX_JOURNALED_ANSWER = 16 * 1024;

/**
 * Answered keys in the host's journal: a `call-key` event each. An answer
 * over {@link MAX_JOURNALED_ANSWER} is journaled as an error that says the
 * call ran and its answer was too big to keep (after a restart, a retry
 * gets that, never a second run).
 */
export function journalKeys(journal: Pick<Journal, "coreEvent" | "query">): KeyJournal {
  return {
    record({ key, method, answer }) {
      const size = JSON.stringify(answer).length;
      const kept: KeyedAnswer = size <= MAX_JOURNALED_ANSWER ? answer : {
        error: {
          code: ErrorCode.NoAnswer,
          message: `the call with request key ${JSON.stringify(key)} ran before the host ` +
            `restarted; its answer (${size} bytes) was too big to keep`,
          data: { key, outcome: "ran" },
        },
      };
      journal.coreEvent("call-key", { key, method, answer: kept });
    },
    load() {
      const out: { key: string; method: string; answer: KeyedAnswer }[] = [];
      for (
        const e of journal.query({
          pid: "core",
          plugin: "core",
          grep: '"event":"call-key"',
          limit: MAX_KEYS,
        })
      ) {
        if (e.stream !== "core") continue; // the core's own events only: never a guest's line
        try {
          const f = parseExact(e.line) as { key?: unknown; method?: unknown; answer?: unknown };
          const a = f.answer as KeyedAnswer | undefined;
          if (typeof f.key !== "string" || typeof f.method !== "string") continue;
          if (!a || typeof a !== "object" || !("result" in a || "error" in a)) continue;
          out.push({ key: f.key, method: f.method, answer: a });
        } catch { /* not ours */ }
      }
      return out;
    },
  };
}
