/**
 * Lossless JSON for messages (PROTOCOL 4.1, "Numbers"): an integer beyond
 * 2^53 (a Rust `u64::MAX`, an `i64::MIN`) comes out of the host exactly as it
 * went in. `parseExact` keeps such an integer as `JSON.rawJSON(its text)`,
 * which `JSON.stringify` writes back verbatim, so routing a message costs no
 * replacer and no second pass. Only texts with a run of 16 or more digits
 * take the slower path (a reviver with the source text); others are plain
 * `JSON.parse`.
 *
 * Code that looks at a value sees a big integer as a frozen object with a
 * `rawJSON` string (`isBigInteger`); schema checks use `approximate` (each
 * big integer as the largest double not above it: its sign and integrality
 * are right, and so is every 64-bit range check of `schema_validator.ts`,
 * whose maxima are the largest doubles below the true maxima).
 *
 * @module
 */

/** A run of 16 digits: no integer below 10^15 can be unsafe. */
const LONG_DIGITS = /\d{16}/;

/** An integer literal (no fraction, no exponent). */
const INTEGER = /^-?\d+$/;

/** Objects and arrays that hold a big integer somewhere inside (set by `parseExact`). */
const holdsBig = new WeakSet<object>();

/** A big integer as `parseExact` keeps it. */
export interface BigInteger {
  /** The integer's JSON text, e.g. `"18446744073709551615"`. */
  readonly rawJSON: string;
}

interface RawJsonApi {
  rawJSON(text: string): BigInteger;
  isRawJSON(v: unknown): v is BigInteger;
}
const api = JSON as unknown as RawJsonApi;

function revive(this: unknown, _key: string, value: unknown, context?: { source?: string }) {
  if (typeof value === "number") {
    if (Number.isSafeInteger(value) || !context?.source || !INTEGER.test(context.source)) {
      return value;
    }
    holdsBig.add(this as object);
    return api.rawJSON(context.source);
  }
  if (typeof value === "object" && value !== null && holdsBig.has(value)) {
    holdsBig.add(this as object);
  }
  return value;
}

/**
 * `JSON.parse` that keeps integers beyond 2^53 exactly (as `BigInteger`s);
 * throws as `JSON.parse` does.
 */
export function parseExact(text: string): unknown {
  if (!LONG_DIGITS.test(text)) return JSON.parse(text);
  return JSON.parse(text, revive as (k: string, v: unknown) => unknown);
}

/** True when `v` is a big integer kept by `parseExact`. */
export function isBigInteger(v: unknown): v is BigInteger {
  return typeof v === "object" && v !== null && api.isRawJSON(v);
}

/** A big integer for `value` (e.g. `bigInteger(2n ** 64n - 1n)`), written verbatim by `JSON.stringify`. */
export function bigInteger(value: bigint): BigInteger {
  return api.rawJSON(value.toString());
}

/**
 * True when `v` may hold a big integer: it was marked by `parseExact`, or
 * (for values built later) a walk finds one.
 */
export function holdsBigInteger(v: unknown): boolean {
  if (typeof v !== "object" || v === null) return false;
  if (holdsBig.has(v) || isBigInteger(v)) return true;
  for (const x of Array.isArray(v) ? v : Object.values(v)) {
    if (typeof x === "object" && x !== null && holdsBigInteger(x)) return true;
  }
  return false;
}

/** The largest double not above the integer `text` (rounding down, not to nearest). */
export function floorDouble(text: string): number {
  const exact = BigInt(text);
  const d = Number(exact);
  if (!Number.isFinite(d) || BigInt(d) <= exact) return d;
  // One step down: the doubles here are integers, their bits ordered as their magnitudes.
  const bits = new Float64Array([d]);
  const word = new BigInt64Array(bits.buffer);
  word[0] += d > 0 ? -1n : 1n;
  return bits[0];
}

/**
 * `v` with each big integer as `floorDouble` of it (for checks of type, sign
 * and range); `v` itself when it holds none.
 */
export function approximate(v: unknown): unknown {
  return holdsBigInteger(v) ? approximated(v) : v;
}

/** A copy of `v` with each big integer as `floorDouble` of it (one walk). */
function approximated(v: unknown): unknown {
  if (typeof v !== "object" || v === null) return v;
  if (isBigInteger(v)) return floorDouble(v.rawJSON);
  if (Array.isArray(v)) return v.map(approximated);
  // `fromEntries` defines own properties: a `__proto__` key stays a key.
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, approximated(x)]));
}
