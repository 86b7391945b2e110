/**
 * Lossless JSON for messages (PROTOCOL 4.1, "Numbers"): every number comes
 * out of the host exactly as it went in, its text unchanged: an integer
 * beyond 2^53 (a Rust `u64::MAX`), a long decimal
 * (`0.1000000000000000055511151231257827`), an exponent a double cannot hold
 * (`1e400`), `-0`, `1.0`, `1E2`. `parseExact` keeps each number whose text
 * `JSON.stringify` would not give back as `JSON.rawJSON(its text)`, which
 * `JSON.stringify` writes back verbatim, so routing a message costs no
 * replacer and no second pass. Only texts with such a number (a scan of the
 * numbers with a fraction, an exponent, 16 digits or `-0` finds one a
 * double writes back otherwise) take the slower path (a reviver with the
 * source text); others are plain `JSON.parse`.
 *
 * Code that looks at a value sees such a number as a frozen object with a
 * `rawJSON` string (`isExactNumber`); schema checks use `approximate` (an
 * integer as the largest double not above it: its sign and integrality are
 * right, and so is every 64-bit range check of `schema_validator.ts`, whose
 * maxima are the largest doubles below the true maxima; any other number
 * as the nearest double).
 *
 * Nesting is bounded: a text nested deeper than {@link MAX_DEPTH} levels is
 * refused ({@link JsonDepthError}) before anything walks it.
 *
 * @module
 */

/**
 * The deepest nesting of arrays and objects a message may have (PROTOCOL
 * 4.1): deeper ones are refused with -32600 naming it, before any code
 * walks them (a walk of 10,000 levels ran out of stack).
 */
export const MAX_DEPTH = 512;

/** A text nested deeper than {@link MAX_DEPTH}: `parseExact` refuses it. */
export class JsonDepthError extends SyntaxError {
  constructor() {
    super(
      `JSON nested deeper than ${MAX_DEPTH} levels (the nesting limit, PROTOCOL 4.1): ` +
        `flatten the data, or pass it as a file in the world`,
    );
  }
}

/**
 * A number whose text a double would change, in sight of a value's start:
 * one with a fraction or an exponent, a run of 16 digits (no integer below
 * 10^15 can be unsafe), `-0`. A match inside a string only costs the slower path.
 */
const CAREFUL = /(?:^|[:,[])\s*(?:-?\d+[.eE]|-?\d{16}|-0(?![.\deE]))/;

/**
 * Each number token of a text (and number-like text in strings after `:`,
 * `,` or `[`, which only costs the slower path): its text is group 1.
 */
const NUMBER_TOKEN = /(?:^|[:,[])\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(?=\s*(?:[,\]}]|$))/g;

/** An integer literal (no fraction, no exponent). */
const INTEGER = /^-?\d+$/;

/** Objects and arrays that hold an exact number somewhere inside (set by `parseExact`). */
const holdsExact = new WeakSet<object>();

/** A number as `parseExact` keeps it when a double would change its text. */
export interface ExactNumber {
  /** The number's JSON text, e.g. `"18446744073709551615"` or `"1e400"`. */
  readonly rawJSON: string;
}

/** An integer beyond 2^53 as `parseExact` keeps it (an {@link ExactNumber}). */
export type BigInteger = ExactNumber;

interface RawJsonApi {
  rawJSON(text: string): ExactNumber;
  isRawJSON(v: unknown): v is ExactNumber;
}
const api = JSON as unknown as RawJsonApi;

function revive(this: unknown, _key: string, value: unknown, context?: { source?: string }) {
  if (typeof value === "number") {
    const source = context?.source;
    if (source === undefined || String(value) === source) return value;
    holdsExact.add(this as object);
    return api.rawJSON(source);
  }
  if (typeof value === "object" && value !== null && holdsExact.has(value)) {
    holdsExact.add(this as object);
  }
  return value;
}

/**
 * `JSON.parse` that keeps every number's text exactly (as `ExactNumber`s
 * where a double would change it); throws as `JSON.parse` does, and
 * {@link JsonDepthError} for a text nested deeper than {@link MAX_DEPTH}.
 */
export function parseExact(text: string): unknown {
  // Valid JSON deeper than MAX_DEPTH has at least 2 * (MAX_DEPTH + 1) characters.
  if (text.length > 2 * MAX_DEPTH && deeperThan(text, MAX_DEPTH)) throw new JsonDepthError();
  if (!CAREFUL.test(text) || !changesANumber(text)) return JSON.parse(text);
  return JSON.parse(text, revive as (k: string, v: unknown) => unknown);
}

/**
 * True when a number of `text` is one a double would write back otherwise
 * (`1.5` no, `1.50`, `1e400`, `-0` yes): only then is the reviver needed.
 */
function changesANumber(text: string): boolean {
  NUMBER_TOKEN.lastIndex = 0;
  for (let m; (m = NUMBER_TOKEN.exec(text)) !== null;) {
    if (String(Number(m[1])) !== m[1]) return true;
  }
  return false;
}

/**
 * True when the arrays and objects of `text` nest deeper than `max` (strings
 * skipped; a text that is not JSON may give either answer).
 */
export function deeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) { // '"': jump to its closing quote
      i = stringEnd(text, i + 1);
      if (i < 0) return false;
    } else if (c === 0x5b || c === 0x7b) { // '[' '{'
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--; // ']' '}'
  }
  return false;
}

/** The index of the quote that closes a string starting at `from`; -1 when none does. */
function stringEnd(text: string, from: number): number {
  for (let q = text.indexOf('"', from); q >= 0; q = text.indexOf('"', q + 1)) {
    let b = q - 1;
    while (text.charCodeAt(b) === 0x5c) b--; // backslashes before it
    if ((q - 1 - b) % 2 === 0) return q;
  }
  return -1;
}

/** True when `v` is a number kept by `parseExact` as its text. */
export function isExactNumber(v: unknown): v is ExactNumber {
  return typeof v === "object" && v !== null && api.isRawJSON(v);
}

/** True when `v` is a number kept by `parseExact` as its text (the name from before decimals were kept too). */
export const isBigInteger = isExactNumber;

/** A big integer for `value` (e.g. `bigInteger(2n ** 64n - 1n)`), written verbatim by `JSON.stringify`. */
export function bigInteger(value: bigint): BigInteger {
  return api.rawJSON(value.toString());
}

/**
 * True when `v` may hold an exact number: it was marked by `parseExact`, or
 * (for values built later) a walk finds one.
 */
export function holdsExactNumber(v: unknown): boolean {
  if (typeof v !== "object" || v === null) return false;
  if (holdsExact.has(v) || isExactNumber(v)) return true;
  for (const x of Array.isArray(v) ? v : Object.values(v)) {
    if (typeof x === "object" && x !== null && holdsExactNumber(x)) return true;
  }
  return false;
}

/** {@link holdsExactNumber} (the name from before decimals were kept too). */
export const holdsBigInteger = holdsExactNumber;

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
 * The double the core reads an exact number as: an integer literal as
 * {@link floorDouble} of it, any other number as the nearest double
 * (`1e400` is `Infinity`, `-0` is `-0`).
 */
export function approximateNumber(v: ExactNumber): number {
  const text = v.rawJSON;
  return INTEGER.test(text) && text !== "-0" ? floorDouble(text) : Number(text);
}

/**
 * `v` with each exact number as {@link approximateNumber} of it (for checks
 * of type, sign and range); `v` itself when it holds none.
 */
export function approximate(v: unknown): unknown {
  return holdsExactNumber(v) ? approximated(v) : v;
}

/** A copy of `v` with each exact number as `approximateNumber` of it (one walk). */
function approximated(v: unknown): unknown {
  if (typeof v !== "object" || v === null) return v;
  if (isExactNumber(v)) return approximateNumber(v);
  if (Array.isArray(v)) return v.map(approximated);
  // `fromEntries` defines own properties: a `__proto__` key stays a key.
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, approximated(x)]));
}
