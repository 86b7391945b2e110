/**
 * What a process's exit says about a trap: the world's memory, the memory limit, a kill, or the
 * trap's own message (the same words on both engines).
 *
 * @module
 */

import { type GuestControl, GuestKilled } from "./guest_control.ts";
import { INITIAL_MEMORY_TRAP, WORLD_MEMORY_TRAP } from "../hop/terms.ts";

/** The `error` of a process that ended with `e` thrown out of its run. */
export function trapMessage(e: unknown, control: GuestControl): string {
  const initial = control.initialRefused === undefined
    ? ""
    : ` (a module declares ${mib(control.initialRefused)} MiB of initial memory)`;
  if (control.worldMemoryHit) {
    return `${WORLD_MEMORY_TRAP}: the world's processes use all the memory it allows (${
      Math.round(control.share!.limit / 2 ** 20)
    } MiB for this sandbox, "world_memory_mib" in config/limits.json)${initial}`;
  }
  if (control.initialRefused !== undefined) {
    return `${INITIAL_MEMORY_TRAP}: a module declares ${
      mib(control.initialRefused)
    } MiB of initial memory, more than a process may have (${
      mib(control.memoryLimit)
    } MiB, "memory_mib" in config/limits.json)`;
  }
  if (control.memoryLimitHit) {
    return `memory limit: the process tried to grow its memory past ${
      control.memoryLimit / 2 ** 20
    } MiB`;
  }
  if (e instanceof GuestKilled) return "killed";
  if (e instanceof WebAssembly.RuntimeError) return `trap: ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}

/** Bytes as MiB, with up to two decimals. */
function mib(bytes: number): number {
  return Math.round(bytes / 2 ** 20 * 100) / 100;
}
