/**
 * How mount values cross the sandbox boundary as JSON: stats carry their
 * inode as a string (JSON has no bigint).
 *
 * @module
 */

import type { Stat } from "./mount.ts";

/** A stat as it travels. */
export type WireStat = Omit<Stat, "ino"> & { ino: string };

/** Stat → wire. */
export function statToWire(s: Stat): WireStat {
  return { ...s, ino: s.ino.toString() };
}

/** Wire → stat. */
export function statFromWire(s: WireStat): Stat {
  return { ...s, ino: BigInt(s.ino) };
}
