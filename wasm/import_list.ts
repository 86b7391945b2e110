/**
 * A core module's imports, read from its bytes. (V8's
 * `WebAssembly.Module.imports` took ~75 ms on a 260 KB Rust module the first
 * time it was asked, on every sandbox's first call of each component.)
 *
 * @module
 */

import { Reader, WasmFormatError } from "./binary.ts";
import { SECTION, skipLimits, skipValType, splitSections } from "./sections.ts";

/** The limits of a memory, in 64 KiB pages. */
export interface MemoryLimits {
  initial: number;
  maximum?: number;
}

/** One import: where from, what, and (for a memory) its limits. */
export interface ImportEntry {
  module: string;
  name: string;
  kind: "function" | "table" | "memory" | "global" | "tag";
  /** A memory's limits, with the flags byte (bit 0: a maximum; 1: shared; 2: 64-bit). */
  memory?: MemoryLimits & { flags: number };
}

const KINDS = ["function", "table", "memory", "global", "tag"] as const;

/** Reads limits (flags, min, optional max). */
export function readLimits(r: Reader): MemoryLimits & { flags: number } {
  const flags = r.u8();
  const initial = r.u32();
  return flags & 1 ? { flags, initial, maximum: r.u32() } : { flags, initial };
}

/** The imports of a module (its bytes, or its sections already split). */
export function listImports(
  module: Uint8Array | ReturnType<typeof splitSections>,
): ImportEntry[] {
  const sections = module instanceof Uint8Array ? splitSections(module) : module;
  const body = sections.find((s) => s.id === SECTION.import)?.body;
  if (!body) return [];
  const r = new Reader(body);
  const out: ImportEntry[] = [];
  for (let n = r.u32(), i = 0; i < n; i++) {
    const entry: ImportEntry = { module: r.name(), name: r.name(), kind: "function" };
    const kind = r.u8();
    entry.kind = KINDS[kind] ?? "function";
    if (kind === 0x00) r.u32();
    else if (kind === 0x01) {
      skipValType(r);
      skipLimits(r);
    } else if (kind === 0x02) entry.memory = readLimits(r);
    else if (kind === 0x03) {
      skipValType(r);
      r.u8();
    } else if (kind === 0x04) {
      r.u8();
      r.u32();
    } else throw new WasmFormatError(`unknown import kind ${kind}`);
    out.push(entry);
  }
  return out;
}
