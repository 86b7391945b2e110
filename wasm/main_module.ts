/**
 * The main core module of a component: the first core module section of a
 * component (in a `jco new --wasi-command` component, the program itself,
 * byte for byte; the preview-1 adapter and jco's shim and fixup modules come
 * after it), or the module itself when the file is a plain core module.
 *
 * @module
 */

import { Reader, WasmFormatError } from "./binary.ts";

/** What a file holds: a core module or a component, and its main core module. */
export interface MainModule {
  kind: "module" | "component";
  /** The main core module's bytes (a view into the file's bytes). */
  bytes: Uint8Array;
}

/** The component section that holds a core module. */
const CORE_MODULE_SECTION = 1;

/**
 * The main core module of `bytes` (a core module or a component); throws
 * {@link WasmFormatError} for anything else or a component without one.
 */
export function mainModuleOf(bytes: Uint8Array): MainModule {
  const r = new Reader(bytes);
  const magic = r.take(4);
  if (magic[0] !== 0 || magic[1] !== 0x61 || magic[2] !== 0x73 || magic[3] !== 0x6d) {
    throw new WasmFormatError("not a WebAssembly file");
  }
  const version = r.take(4);
  if (version[0] === 1 && version[1] === 0 && version[2] === 0 && version[3] === 0) {
    return { kind: "module", bytes };
  }
  if (version[2] !== 1 || version[3] !== 0) {
    throw new WasmFormatError("neither a core module nor a component");
  }
  while (!r.done) {
    const id = r.u8();
    const body = r.take(r.u32());
    if (id === CORE_MODULE_SECTION) return { kind: "component", bytes: body };
  }
  throw new WasmFormatError("a component without a core module");
}
