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

import { Reader, Writer } from "./binary.ts";
import { joinSections, SECTION, splitSections } from "./sections.ts";
import { listImports } from "./import_list.ts";

const KIND_FUNC = 0;
const OP_CALL = 0x10;
const OP_LOCAL_GET = 0x20;
const OP_END = 0x0b;

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
  const all = splitSections(module);
  const exports = all.find((s) => s.id === SECTION.export);
  const code = all.find((s) => s.id === SECTION.code);
  if (!exports || !code) return module;
  const entries: { name: string; kind: number; index: number }[] = [];
  const r = new Reader(exports.body);
  for (let n = r.u32(); n > 0; n--) entries.push({ name: r.name(), kind: r.u8(), index: r.u32() });
  const target = entries.find((e) => e.name === name && e.kind === KIND_FUNC);
  if (!target) return module;
  const local = target.index - listImports(all).filter((i) => i.kind === "function").length;
  if (local < 0) return module;
  const c = new Reader(code.body);
  if (local >= c.u32()) return module;
  for (let i = 0; i < local; i++) {
    const skip = c.u32(); // read first: `c.pos += c.u32()` would add to the old position
    c.pos += skip;
  }
  const size = c.u32();
  const inner = wrappedCallee(new Reader(code.body, c.pos, c.pos + size));
  if (inner === null) return module;
  target.index = inner;

  const body = new Writer().u32(entries.length);
  for (const e of entries) body.name(e.name).u8(e.kind).u32(e.index);
  return joinSections(all, new Map([[SECTION.export, body.view().slice()]]));
}
