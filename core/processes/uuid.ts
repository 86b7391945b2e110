/**
 * UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then random bits, so ids
 * sort by creation time. Ids made in the same millisecond by this host still
 * sort in creation order: the 12-bit `rand_a` field counts up within a
 * millisecond.
 *
 * @module
 */

let lastMs = 0;
let seq = 0;

/** Two hex digits per byte value. */
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** Random bytes drawn 4 KiB at a time (one call into the OS per 512 ids, not one per id). */
const pool = new Uint8Array(4096);
let poolAt = pool.length;

/** A new UUIDv7 string, e.g. `0197f3a2-7c1e-7d2b-9a41-5f0c2e8b1d34`. */
export function uuidv7(now = Date.now()): string {
  if (now <= lastMs) {
    seq++;
    if (seq > 0xfff) {
      lastMs++; // borrow from the next millisecond rather than lose the order
      seq = 0;
    }
    now = lastMs;
  } else {
    lastMs = now;
    seq = 0;
  }
  if (poolAt + 8 > pool.length) {
    crypto.getRandomValues(pool);
    poolAt = 0;
  }
  const r = poolAt;
  poolAt += 8;
  const ms = now.toString(16).padStart(12, "0");
  const h = (i: number) => HEX[pool[r + i]];
  return `${ms.slice(0, 8)}-${ms.slice(8, 12)}-${HEX[0x70 | (seq >> 8)]}${HEX[seq & 0xff]}-` +
    `${HEX[0x80 | (pool[r] & 0x3f)]}${h(1)}-${h(2)}${h(3)}${h(4)}${h(5)}${h(6)}${h(7)}`;
}

/** The smallest UUIDv7 of a millisecond: `id >= uuidFloor(t)` means "made at or after t". */
export function uuidFloor(ms: number): string {
  const h = Math.max(0, Math.floor(ms)).toString(16).padStart(12, "0");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-7000-8000-000000000000`;
}
