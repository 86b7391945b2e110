/**
 * A core module as a list of sections, and back: the common ground of the
 * rewrites in this folder (`preempt.ts`, `import_memory.ts`).
 *
 * @module
 */

import { Reader, WasmFormatError, Writer } from "./binary.ts";

/** Section ids, by name. */
export const SECTION = {
  custom: 0,
  type: 1,
  import: 2,
  function: 3,
  table: 4,
  memory: 5,
  global: 6,
  export: 7,
  start: 8,
  element: 9,
  code: 10,
  data: 11,
  dataCount: 12,
  tag: 13,
} as const;

/** Where each known section must stand, by id (the binary format's order). */
const SECTION_ORDER: Record<number, number> = {
  1: 1, // type
  2: 2, // import
  3: 3, // function
  4: 4, // table
  5: 5, // memory
  13: 6, // tag
  6: 7, // global
  7: 8, // export
  8: 9, // start
  9: 10, // element
  12: 11, // data count
  10: 12, // code
  11: 13, // data
};

/** One section of a module: its id and body (a view into the module). */
export interface Section {
  id: number;
  body: Uint8Array;
}

/** Splits a core module into its sections; throws {@link WasmFormatError} for anything else. */
export function splitSections(bytes: Uint8Array): Section[] {
  const r = new Reader(bytes);
  const magic = r.take(4);
  if (magic[0] !== 0 || magic[1] !== 0x61 || magic[2] !== 0x73 || magic[3] !== 0x6d) {
    throw new WasmFormatError("not a WebAssembly module");
  }
  const version = r.take(4);
  if (version[0] !== 1 || version[1] !== 0 || version[2] !== 0 || version[3] !== 0) {
    throw new WasmFormatError("not a core module (a component?)");
  }
  const sections: Section[] = [];
  while (!r.done) {
    const id = r.u8();
    const size = r.u32();
    sections.push({ id, body: r.take(size) });
  }
  return sections;
}

/**
 * Writes a module back: its sections in order, with the bodies in
 * `replaced` instead of (or, for ids it lacks, in addition to) the old
 * ones; a `null` body drops the section. `custom` may rewrite custom
 * sections (id 0).
 */
export function joinSections(
  sections: Section[],
  replaced: Map<number, Uint8Array | null>,
  custom: (body: Uint8Array) => Uint8Array = (b) => b,
): Uint8Array<ArrayBuffer> {
  const out = new Writer().bytes(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  const emit = (id: number, b: Uint8Array | null | undefined) => {
    if (b) out.u8(id).u32(b.length).bytes(b);
  };
  const pending = new Set(replaced.keys());
  for (const s of sections) {
    if (s.id === SECTION.custom) {
      emit(0, custom(s.body));
      continue;
    }
    for (const id of [...pending]) {
      if (SECTION_ORDER[id] < SECTION_ORDER[s.id]) {
        emit(id, replaced.get(id));
        pending.delete(id);
      }
    }
    if (replaced.has(s.id)) {
      if (pending.delete(s.id)) emit(s.id, replaced.get(s.id));
    } else emit(s.id, s.body);
  }
  for (const id of pending) emit(id, replaced.get(id));
  return out.view().slice();
}

/** Skips a value type (with the heap type of a reference, if any). */
export function skipValType(r: Reader): void {
  const b = r.u8();
  if (b === 0x63 || b === 0x64) r.signed();
}

/** Skips the limits of a table or memory. */
export function skipLimits(r: Reader): void {
  const flags = r.u8();
  r.skipLeb();
  if (flags & 1) r.skipLeb();
}

/** Appends to a vector section: the old count plus `extra`, the old items, then `more`. */
export function appendToVector(
  body: Uint8Array | undefined,
  extra: number,
  more: Uint8Array,
): Uint8Array {
  const w = new Writer();
  if (!body) return w.u32(extra).bytes(more).view().slice();
  const r = new Reader(body);
  const n = r.u32();
  return w.u32(n + extra).bytes(body.subarray(r.pos)).bytes(more).view().slice();
}
