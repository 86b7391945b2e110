/**
 * A test binary without its DWARF: a debug build's `.debug_*` custom
 * sections are most of its bytes (4 of 5 MB for the template's tests), and
 * jco's glue copies and parses every byte of a component each time a new
 * binary is transpiled. Nothing reads them under WASI: a panic's message and
 * line come from the data section, and the `name` section is kept.
 *
 * @module
 */

import { Reader, Writer } from "../../wasm/binary.ts";
import { splitSections } from "../../wasm/sections.ts";

/** The module without its `.debug_*` custom sections (the same bytes when it has none). */
export function withoutDebugInfo(module: Uint8Array): Uint8Array {
  const sections = splitSections(module);
  const debug = (body: Uint8Array) => {
    const r = new Reader(body);
    const len = r.u32();
    return new TextDecoder().decode(r.take(len)).startsWith(".debug_");
  };
  if (!sections.some((s) => s.id === 0 && debug(s.body))) return module;
  const out = new Writer().bytes(module.subarray(0, 8));
  for (const s of sections) {
    if (s.id === 0 && debug(s.body)) continue;
    out.u8(s.id).u32(s.body.length).bytes(s.body);
  }
  return out.view().slice();
}
