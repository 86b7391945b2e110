/**
 * What a process's exit says about a trap: the memory limit, a kill, or the
 * trap's own message (the same words on both engines).
 *
 * @module
 */

import { type GuestControl, GuestKilled } from "./guest_control.ts";

/** The `error` of a process that ended with `e` thrown out of its run. */
export function trapMessage(e: unknown, control: GuestControl): string {
  if (control.memoryLimitHit) {
    return `memory limit: the process tried to grow its memory past ${
      control.memoryLimit / 2 ** 20
    } MiB`;
  }
  if (e instanceof GuestKilled) return "killed";
  if (e instanceof WebAssembly.RuntimeError) return `trap: ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}
