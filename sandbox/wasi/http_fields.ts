/**
 * `wasi:http/types.fields`: HTTP headers and trailers as a guest sees them.
 * Names are checked tokens, kept in lower case; values are bytes without CR,
 * LF or NUL. Headers that belong to the connection (not to the request) are
 * `forbidden`. Fields that belong to a request or response are `immutable`:
 * the guest gets a fresh view of the same list each time it asks, so a
 * handle it dropped is never handed back.
 *
 * @module
 */

/** `header-error`, as jco passes it. */
export type HeaderError = { tag: "invalid-syntax" } | { tag: "forbidden" } | { tag: "immutable" };

/** Connection-level headers a guest may not set (as in wasmtime's default set). */
const FORBIDDEN_HEADERS: ReadonlySet<string> = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "transfer-encoding",
  "upgrade",
  "http2-settings",
]);

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function headerError(tag: HeaderError["tag"]): never {
  throw { payload: { tag } };
}

/** The lower-case name, or `invalid-syntax` / `forbidden`. */
function checkedName(name: string): string {
  if (!TOKEN.test(name)) headerError("invalid-syntax");
  const lower = name.toLowerCase();
  if (FORBIDDEN_HEADERS.has(lower)) headerError("forbidden");
  return lower;
}

function checkValue(value: Uint8Array): void {
  if (value.some((b) => b === 0 || b === 10 || b === 13)) headerError("invalid-syntax");
}

/** The list behind one or more `fields` views: `[lower-case name, value]` in order. */
export class FieldList {
  /** @param entries the fields, in order */
  constructor(public entries: [string, Uint8Array][] = []) {}

  /** A list from `fetch`'s headers (values as latin-1 bytes). */
  static fromHeaders(headers: Headers): FieldList {
    const entries: [string, Uint8Array][] = [];
    for (const [name, value] of headers) entries.push([name.toLowerCase(), latin1Bytes(value)]);
    return new FieldList(entries);
  }

  /** The first value of `name` as text, if any. */
  first(name: string): string | undefined {
    const hit = this.entries.find(([n]) => n === name);
    return hit ? latin1Text(hit[1]) : undefined;
  }

  /** The fields as `fetch` headers. */
  toHeaders(): Headers {
    const h = new Headers();
    for (const [name, value] of this.entries) h.append(name, latin1Text(value));
    return h;
  }
}

/** Bytes of a header value that `fetch` gave as a (byte) string. */
function latin1Bytes(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0) & 0xff);
}

/** A header value's bytes as the byte string `fetch` takes. */
function latin1Text(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return s;
}

/** `wasi:http/types.fields`. */
export class Fields {
  /**
   * Empty, mutable fields (the guest's `constructor`); the host passes a
   * list and `immutable` to make a view of a request's or response's fields.
   */
  constructor(readonly list: FieldList = new FieldList(), private immutable = false) {}

  /** Mutable fields from name/value pairs, checked. */
  static fromList(entries: [string, Uint8Array][]): Fields {
    const list = new FieldList();
    for (const [name, value] of entries) {
      const lower = checkedName(name);
      checkValue(value);
      list.entries.push([lower, value]);
    }
    return new Fields(list);
  }

  private mutable(): void {
    if (this.immutable) headerError("immutable");
  }

  /** Every value of `name` (none for an invalid name). */
  get(name: string): Uint8Array[] {
    const lower = name.toLowerCase();
    return this.list.entries.filter(([n]) => n === lower).map(([, v]) => v);
  }

  /** True if `name` has a value. */
  has(name: string): boolean {
    const lower = name.toLowerCase();
    return this.list.entries.some(([n]) => n === lower);
  }

  /** Replaces the values of `name`. */
  set(name: string, values: Uint8Array[]): void {
    this.mutable();
    const lower = checkedName(name);
    values.forEach(checkValue);
    this.list.entries = this.list.entries.filter(([n]) => n !== lower);
    for (const v of values) this.list.entries.push([lower, v]);
  }

  /** Removes every value of `name`. */
  delete(name: string): void {
    this.mutable();
    const lower = checkedName(name);
    this.list.entries = this.list.entries.filter(([n]) => n !== lower);
  }

  /** Adds a value to `name`. */
  append(name: string, value: Uint8Array): void {
    this.mutable();
    const lower = checkedName(name);
    checkValue(value);
    this.list.entries.push([lower, value]);
  }

  /** Every name/value pair, in order. */
  entries(): [string, Uint8Array][] {
    return this.list.entries.map(([n, v]) => [n, v]);
  }

  /** A mutable copy. */
  clone(): Fields {
    return new Fields(new FieldList(this.entries()));
  }
}
