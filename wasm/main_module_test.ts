import { strict as assert } from "node:assert";
import { Writer } from "./binary.ts";
import { mainModuleOf } from "./main_module.ts";
import { listImports } from "./import_list.ts";
import { preview1MainOf } from "../core/cache/component_cache.ts";

/** A core module importing `module.name` (a function of no params and results). */
function coreModule(module: string, name: string): Uint8Array {
  const w = new Writer().bytes(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  const section = (id: number, body: Writer) => w.u8(id).u32(body.length).bytes(body.view());
  section(1, new Writer().u32(1).u8(0x60).u32(0).u32(0));
  section(2, new Writer().u32(1).name(module).name(name).u8(0).u32(0));
  return w.view().slice();
}

/** A component whose sections are a custom one, then the core modules given, in order. */
function component(...modules: Uint8Array[]): Uint8Array {
  const w = new Writer().bytes(new Uint8Array([0, 0x61, 0x73, 0x6d, 0x0d, 0, 1, 0]));
  const custom = new Writer().name("note").bytes(new Uint8Array([1, 2, 3]));
  w.u8(0).u32(custom.length).bytes(custom.view());
  for (const m of modules) w.u8(1).u32(m.length).bytes(m);
  return w.view().slice();
}

Deno.test("the main module is a component's first core module, or a core module itself", () => {
  const main = coreModule("wasi_snapshot_preview1", "fd_write");
  const adapter = coreModule("wasi:cli/stdout@0.2.3", "get-stdout");
  const found = mainModuleOf(component(main, adapter));
  assert.equal(found.kind, "component");
  assert.deepEqual([...found.bytes], [...main]);
  assert.equal(mainModuleOf(main).kind, "module");
  assert.throws(() => mainModuleOf(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8])), /not a WebAssembly/);
  assert.throws(() => mainModuleOf(component()), /without a core module/);
});

Deno.test("a component takes the preview-1 binding only when its main module imports only preview 1 and bound WASI 0.2 functions", () => {
  const p1 = coreModule("wasi_snapshot_preview1", "fd_write");
  // The SDK's WASI 0.2 imports are bound at the canonical-ABI level on the same path.
  const p2 = coreModule("wasi:io/streams@0.2.3", "[method]output-stream.write");
  const notBound = coreModule("wasi:keyvalue/store@0.2.0", "open");
  const unknown = coreModule("wasi_snapshot_preview1", "no_such_function");
  const adapter = coreModule("wasi:cli/stdout@0.2.3", "get-stdout");
  assert.deepEqual(listImports(preview1MainOf(component(p1, adapter))!)[0].name, "fd_write");
  assert.deepEqual(preview1MainOf(component(p2, adapter)), p2, "bound WASI 0.2 imports");
  assert.equal(preview1MainOf(component(notBound, adapter)), null, "another interface: jco's path");
  assert.equal(preview1MainOf(component(unknown, adapter)), null, "not a preview-1 function");
  assert.deepEqual(preview1MainOf(p1), p1, "a plain core module is taken as it is");
  assert.throws(() => preview1MainOf(p2), /may import only wasi_snapshot_preview1/);
});
