/**
 * What a plugin file needs, read from its bytes without running it: whether
 * it is a core module or a component, each import of its main core module
 * and whether this host binds it, which engine will run it (the same choice
 * as `component_cache.ts`), and its memory declaration.
 *
 * @module
 */

import { Reader } from "../../wasm/binary.ts";
import { type ImportEntry, listImports, readLimits } from "../../wasm/import_list.ts";
import { mainModuleOf } from "../../wasm/main_module.ts";
import { SECTION, splitSections } from "../../wasm/sections.ts";
import { PREVIEW1_FUNCTIONS, PREVIEW1_MODULE } from "../../sandbox/preview1/names.ts";
import { isBound } from "../../sandbox/canonical_abi/wit.ts";
import { preview1MainOf } from "../cache/component_cache.ts";

/** The bytes of a WebAssembly page. */
const PAGE = 65536;

/** One import of the main module, and what binds it. */
export interface CheckedImport {
  module: string;
  name: string;
  kind: ImportEntry["kind"];
  /**
   * What binds it: `preview1` (Sausage's preview-1 binding), `wasi-0.2`
   * (the WASI 0.2 functions that binding has at the canonical-ABI level),
   * `memory` (the host hands every process its memory), `component` (the
   * component's own instances and jco's glue), or null: nothing here does.
   */
  boundBy: "preview1" | "wasi-0.2" | "memory" | "component" | null;
}

/** A memory's declaration, in 64 KiB pages and in MiB. */
export interface MemoryDeclaration {
  initialPages: number;
  maximumPages?: number;
  initialMib: number;
  maximumMib?: number;
}

/** What {@linkcode checkPluginFile} finds. */
export interface PluginFileReport {
  /** `module`: a plain core module (preview 1); `component`: a WASI 0.2 component. */
  kind: "module" | "component";
  /** The file's size in bytes. */
  bytes: number;
  /** `p1`: Sausage's preview-1 binding; `jco`: jco's component glue; null: nothing runs it. */
  engine: "p1" | "jco" | null;
  /** Why that engine, or why none. */
  engineWhy: string;
  /** The main core module's imports. */
  imports: CheckedImport[];
  /** The main module's memory (defined or imported), if it has one. */
  memory?: MemoryDeclaration;
  /** What stops it from running here, or from starting under `memory_mib`; empty when nothing. */
  problems: string[];
}

/** The main module's first memory: its own, else the one it imports. */
function memoryOf(main: Uint8Array, imports: ImportEntry[]): MemoryDeclaration | undefined {
  let limits = imports.find((i) => i.kind === "memory")?.memory;
  if (!limits) {
    const section = splitSections(main).find((s) => s.id === SECTION.memory);
    if (section) {
      const r = new Reader(section.body);
      if (r.u32() > 0) limits = readLimits(r);
    }
  }
  if (!limits) return undefined;
  const mib = (pages: number) => Math.round((pages * PAGE / 2 ** 20) * 100) / 100;
  return {
    initialPages: limits.initial,
    initialMib: mib(limits.initial),
    ...(limits.maximum === undefined
      ? {}
      : { maximumPages: limits.maximum, maximumMib: mib(limits.maximum) }),
  };
}

/**
 * Reads a plugin file. `memoryMib` is the world's `memory_mib` (default 256):
 * an initial memory above it cannot start. Throws for a file that is neither
 * a core module nor a component.
 */
export function checkPluginFile(bytes: Uint8Array, memoryMib = 256): PluginFileReport {
  const main = mainModuleOf(bytes);
  const imports = listImports(main.bytes);
  const checked: CheckedImport[] = imports.map((i) => ({
    module: i.module,
    name: i.name,
    kind: i.kind,
    boundBy: i.kind === "memory"
      ? "memory"
      : i.module === PREVIEW1_MODULE && i.kind === "function" && PREVIEW1_FUNCTIONS.has(i.name)
      ? "preview1"
      : main.kind === "component" && i.kind === "function" && isBound(i.module, i.name)
      ? "wasi-0.2"
      : main.kind === "component"
      ? "component"
      : null,
  }));
  const problems: string[] = [];
  let engine: PluginFileReport["engine"];
  let engineWhy: string;
  try {
    if (preview1MainOf(bytes)) {
      engine = "p1";
      engineWhy = main.kind === "module"
        ? "a core module that imports only WASI preview 1: Sausage's preview-1 binding runs it"
        : "a component whose main module imports only what Sausage's preview-1 binding has: " +
          "that binding runs the main module";
    } else {
      engine = "jco";
      engineWhy = "a component that imports more than Sausage's preview-1 binding has: " +
        "jco's component glue runs it (slower per call)";
    }
  } catch (e) {
    engine = null;
    engineWhy = e instanceof Error ? e.message : String(e);
    problems.push(engineWhy);
  }
  const memory = memoryOf(main.bytes, imports);
  if (memory && memory.initialMib > memoryMib) {
    problems.push(
      `its initial memory (${memory.initialMib} MiB) is above memory_mib (${memoryMib} MiB): ` +
        "it cannot start; raise memory_mib in config/limits.json or declare less memory",
    );
  }
  return {
    kind: main.kind,
    bytes: bytes.length,
    engine,
    engineWhy,
    imports: checked,
    memory,
    problems,
  };
}
