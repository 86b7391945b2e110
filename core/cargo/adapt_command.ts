/**
 * Turns a `wasm32-wasip1` command module into a component with jco's
 * preview-1 command adapter, the one way the offline toolchain, the test
 * runner and the conformance suite do it. Its `cabi_realloc` (which the
 * adapter uses for its stack and state: `cabi_realloc.c`) is first taken
 * out of wasm-ld's constructor wrapper (`wasm/command_export.ts`).
 *
 * @module
 */

import { unwrapCommandExport } from "../../wasm/command_export.ts";

/** Bump when the adaptation changes, so cached adapted components are made again. */
export const ADAPT_VERSION = 2;

/**
 * The component of a preview-1 command module, made with jco's command
 * adapter or, for comparisons (`deno task wasi-testsuite --adapter`), the
 * adapter given.
 */
export async function adaptCommand(core: Uint8Array, adapter?: Uint8Array): Promise<Uint8Array> {
  // Loaded on first use: jco is large, and a host start usually builds nothing.
  const { componentNew, preview1AdapterCommandPath } = await import("@bytecodealliance/jco");
  adapter ??= await Deno.readFile(preview1AdapterCommandPath());
  return await componentNew(unwrapCommandExport(core, "cabi_realloc"), [
    ["wasi_snapshot_preview1", adapter],
  ]);
}
