/**
 * The processes that run at the far end of one `MessageLink`: a local
 * sandbox (`sandbox.ts`) or a worker over NATS (`remote/remote_worker.ts`).
 * Each message about a process goes to its handler, its `exit` last; when
 * the far end is lost, every process still there ends at once with a
 * message that says so, and a process started after ends the same way.
 *
 * @module
 */

import type { ExitMessage, ProcessMessage } from "../../sandbox/hop/protocol.ts";

/** Receives the messages of one process, ending with its `exit`. */
export type ProcessHandler = (msg: ProcessMessage) => void;

/** The processes of one sandbox or worker, by pid. */
export class LinkedProcesses {
  private handlers = new Map<string, ProcessHandler>();
  private why: string | null = null;

  /** @param lostMessage the error of a process that ended because the far end was lost */
  constructor(private lostMessage: (why: string) => string) {}

  /** Why the far end was lost, or null while it is there. */
  get lost(): string | null {
    return this.why;
  }

  /** How many run there now (killed ones that have not exited included). */
  get size(): number {
    return this.handlers.size;
  }

  /** True while `pid` runs there. */
  has(pid: string): boolean {
    return this.handlers.has(pid);
  }

  /** Takes a new process; false (and it has ended) when the far end was lost. */
  add(pid: string, handler: ProcessHandler): boolean {
    if (this.why !== null) {
      handler(exit(pid, this.lostMessage(this.why)));
      return false;
    }
    this.handlers.set(pid, handler);
    return true;
  }

  /** A message about one of them, to its handler; after its `exit`, it is gone. */
  deliver(msg: ProcessMessage): void {
    const handler = this.handlers.get(msg.pid);
    if (msg.op === "exit") this.handlers.delete(msg.pid);
    handler?.(msg);
  }

  /** Ends one now (status 1, `error`), if it is there. */
  end(pid: string, error: string): void {
    const handler = this.handlers.get(pid);
    if (!handler) return;
    this.handlers.delete(pid);
    handler(exit(pid, error));
  }

  /** The far end is lost: every process ends now; returns how many (0 when it was lost already). */
  lose(why: string): number {
    if (this.why !== null) return 0;
    this.why = why;
    const ended = [...this.handlers.keys()];
    const error = this.lostMessage(why);
    for (const pid of ended) this.end(pid, error);
    return ended.length;
  }
}

function exit(pid: string, error: string): ExitMessage {
  return { op: "exit", pid, status: 1, error };
}
