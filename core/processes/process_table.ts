/**
 * The running processes by pid.
 *
 * @module
 */

import type { Process, ProcessInfo } from "./process.ts";

/** The table of running processes. */
export class ProcessTable {
  private byPid = new Map<string, Process>();

  /** Adds a started process. */
  add(p: Process): void {
    this.byPid.set(p.pid, p);
  }

  /** Removes an ended process. */
  remove(p: Process): void {
    this.byPid.delete(p.pid);
  }

  /** The process with this pid, if it runs. */
  get(pid: string): Process | undefined {
    return this.byPid.get(pid);
  }

  /** Every running process, oldest first. */
  all(): Process[] {
    return [...this.byPid.values()];
  }

  /** What `ps` shows, oldest first. */
  list(): ProcessInfo[] {
    return this.all().map((p) => p.info());
  }

  /** The number of running processes. */
  get size(): number {
    return this.byPid.size;
  }
}
