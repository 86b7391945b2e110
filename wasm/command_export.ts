/**
 * wasm-ld wraps every export of a command module (one with `_start` that
 * does not call `__wasm_call_ctors` itself) in a function that runs the
 * constructors before the call and the destructors after it. For
 * `cabi_realloc` that is wrong: the preview-1 adapter calls it while it is
 * still setting itself up, so the constructors (wasi-libc's preopens, a
 * crate's `#[ctor]` that reads the environment) run too early, see an
 * empty environment, and run again at `_start`. This module points such an
 * export at the function inside the wrapper.
 *
 * @module
 */

import { Reader, WasmFormatError, Writer } from "./binary.ts";

const SECTION_IMPORT = 2;
const SECTION_EXPORT = 7;
const SECTION_CODE = 10;
const KIND_FUNC = 0;
const OP_CALL = 0x10;
const OP_LOCAL_GET = 0x20;
const OP_END = 0x0b;

interface Section {
  id: number;
  start: number;
  end: number;
}

function sections(module: Uint8Array): Section[] {
  if (module.length < 8 || module[0] !== 0 || module[1] !== 0x61 || module[4] !== 1) {
    throw new WasmFormatError("not a core WebAssembly module");
  }
  const out: Section[] = [];
  const r = new Reader(module, 8);
  while (!r.done) {
    const id = r.u8();
    const size = r.u32();
    out.push({ id, start: r.pos, end: r.pos + size });
    r.pos += size;
  }
  return out;
}

/** How many functions the module imports (they come first in the function index space). */
function importedFunctions(module: Uint8Array, s: Section | undefined): number {
  if (!s) return 0;
  const r = new Reader(module, s.start, s.end);
  let funcs = 0;
  for (let n = r.u32(); n > 0; n--) {
    r.name();
    r.name();
    const kind = r.u8();
    if (kind === KIND_FUNC) (funcs++, r.u32());
    else if (kind === 1) (r.u8(), limits(r)); // table
    else if (kind === 2) limits(r); // memory
    else if (kind === 3) (r.u8(), r.u8()); // global
    else if (kind === 4) (r.u8(), r.u32()); // tag
    else throw new WasmFormatError(`unknown import kind ${kind}`);
  }
  return funcs;
}

function limits(r: Reader): void {
  const flags = r.u8();
  r.skipLeb();
  if (flags & 1) r.skipLeb();
}

/** The callee of a body `call c; local.get 0..n-1; call f; call d; end`, or null. */
function wrappedCallee(body: Reader): number | null {
  try {
    for (let groups = body.u32(); groups > 0; groups--) (body.u32(), body.u8());
    if (body.u8() !== OP_CALL) return null;
    body.u32();
    let op = body.u8();
    for (let i = 0; op === OP_LOCAL_GET; i++, op = body.u8()) if (body.u32() !== i) return null;
    if (op !== OP_CALL) return null;
    const inner = body.u32();
    if (body.u8() !== OP_CALL) return null;
    body.u32();
    return body.u8() === OP_END && body.done ? inner : null;
  } catch {
    return null;
  }
}

/**
 * Points the function export `name` at the function its command wrapper
 * calls. Returns the bytes unchanged when the export is missing or is not
 * such a wrapper.
 */
export function unwrapCommandExport(module: Uint8Array, name: string): Uint8Array {
  const all = sections(module);
  const exports = all.find((s) => s.id === SECTION_EXPORT);
  const code = all.find((s) => s.id === SECTION_CODE);
  if (!exports || !code) return module;
  const entries: { name: string; kind: number; index: number }[] = [];
  const r = new Reader(module, exports.start, exports.end);
  for (let n = r.u32(); n > 0; n--) entries.push({ name: r.name(), kind: r.u8(), index: r.u32() });
  const target = entries.find((e) => e.name === name && e.kind === KIND_FUNC);
  if (!target) return module;
  const local = target.index - importedFunctions(module, all.find((s) => s.id === SECTION_IMPORT));
  if (local < 0) return module;
  const c = new Reader(module, code.start, code.end);
  if (local >= c.u32()) return module;
  for (let i = 0; i < local; i++) {
    const skip = c.u32(); // read first: `c.pos += c.u32()` would add to the old position
    c.pos += skip;
  }
  const size = c.u32();
  const inner = wrappedCallee(new Reader(module, c.pos, c.pos + size));
  if (inner === null) return module;
  target.index = inner;

  const body = new Writer().u32(entries.length);
  for (const e of entries) body.name(e.name).u8(e.kind).u32(e.index);
  const out = new Writer().bytes(module.subarray(0, headerStart(module, exports)));
  out.u8(SECTION_EXPORT).u32(body.length).bytes(body.view()).bytes(module.subarray(exports.end));
  return out.view().slice();
}

/** Where a section's id byte is (its size LEB sits between it and the content). */
function headerStart(module: Uint8Array, s: Section): number {
  let i = s.start - 1;
  while (module[i - 1] & 0x80) i--; // back over the size's continuation bytes
  return i - 1;
}
