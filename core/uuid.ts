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
  const b = new Uint8Array(16);
  crypto.getRandomValues(b.subarray(8));
  for (let i = 0; i < 6; i++) b[i] = Math.floor(now / 2 ** (8 * (5 - i))) & 0xff;
  b[6] = 0x70 | (seq >> 8);
  b[7] = seq & 0xff;
  b[8] = 0x80 | (b[8] & 0x3f);
  const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The smallest UUIDv7 of a millisecond: `id >= uuidFloor(t)` means "made at or after t". */
export function uuidFloor(ms: number): string {
  const h = Math.max(0, Math.floor(ms)).toString(16).padStart(12, "0");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-7000-8000-000000000000`;
}
