/**
 * Turns a module's own memory into an imported one, so that the host can
 * hand each new instance a memory it has used before (already mapped and
 * faulted in: `sandbox/guest/memory_pool.ts`) instead of a fresh one. On this
 * machine a fresh instance paid ~15 µs for every 4 KiB page it touched (4 ms
 * a MiB), 0.5–1 ms per process (DECISIONS.md, "Pooled memories").
 *
 * The import keeps the memory's limits and stays memory 0, so no index in
 * the module changes; active data segments are still written by the
 * instantiation. A module that already imports a memory, or whose memory is
 * shared or 64-bit, is left as it is.
 *
 * @module
 */

import { Reader, Writer } from "./binary.ts";
import { appendToVector, joinSections, SECTION, splitSections } from "./sections.ts";
import { type ImportEntry, listImports, type MemoryLimits, readLimits } from "./import_list.ts";

export type { MemoryLimits };

/** The import module and name of a memory made imported. */
export const MEMORY_IMPORT = { module: "sausage:memory", name: "memory" } as const;

/**
 * The module with memory 0 imported as {@link MEMORY_IMPORT}, and its
 * limits; null when there is nothing to change.
 */
export function importMemory(
  bytes: Uint8Array,
): { bytes: Uint8Array<ArrayBuffer>; limits: MemoryLimits } | null {
  const sections = splitSections(bytes);
  const memory = sections.find((s) => s.id === SECTION.memory);
  if (!memory || listImports(sections).some((i) => i.kind === "memory")) return null;
  const r = new Reader(memory.body);
  const count = r.u32();
  if (count === 0) return null;
  const start = r.pos;
  const { flags, ...limits } = readLimits(r);
  if (flags & ~1) return null; // shared or 64-bit
  const entry = memory.body.subarray(start, r.pos);
  const rest = count === 1
    ? null
    : new Writer().u32(count - 1).bytes(memory.body.subarray(r.pos)).view().slice();
  const imported = new Writer().name(MEMORY_IMPORT.module).name(MEMORY_IMPORT.name).u8(0x02)
    .bytes(entry).view().slice();
  const imports = sections.find((s) => s.id === SECTION.import)?.body;
  const replaced = new Map<number, Uint8Array | null>([
    [SECTION.import, appendToVector(imports, 1, imported)],
    [SECTION.memory, rest],
  ]);
  return { bytes: joinSections(sections, replaced), limits };
}

/** The limits of the module's {@link MEMORY_IMPORT} (from its bytes or imports), if it has one. */
export function memoryImportOf(module: Uint8Array | ImportEntry[]): MemoryLimits | undefined {
  const imports = module instanceof Uint8Array ? listImports(module) : module;
  const found = imports.find((i) =>
    i.module === MEMORY_IMPORT.module && i.name === MEMORY_IMPORT.name && i.memory
  );
  if (!found?.memory) return undefined;
  const { initial, maximum } = found.memory;
  return maximum === undefined ? { initial } : { initial, maximum };
}
