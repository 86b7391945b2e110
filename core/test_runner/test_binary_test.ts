import { strict as assert } from "node:assert";
import { Writer } from "../../wasm/binary.ts";
import { listImports } from "../../wasm/import_list.ts";
import { mainModuleOf } from "../../wasm/main_module.ts";
import { holds, leanEnvelope } from "./test_binary.ts";

/** A core module importing `module.name` (a function of no params and results), with a custom section. */
function coreModule(module: string, name: string, custom: string): Uint8Array {
  const w = new Writer().bytes(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  const section = (id: number, body: Writer) => w.u8(id).u32(body.length).bytes(body.view());
  section(1, new Writer().u32(1).u8(0x60).u32(0).u32(0));
  section(2, new Writer().u32(1).name(module).name(name).u8(0).u32(0));
  section(0, new Writer().name(custom).bytes(new Uint8Array(64)));
  return w.view().slice();
}

Deno.test("holds finds ASCII text in bytes, as a string search would", () => {
  const bytes = new TextEncoder().encode("--include --include-ignore --include-ignored x");
  assert.equal(holds(bytes, "--include-ignored"), true);
  assert.equal(holds(bytes, "--include-ignoredx"), false);
  assert.equal(holds(bytes.subarray(0, 30), "--include-ignored"), false);
  assert.equal(holds(new Uint8Array(), "-"), false);
});

Deno.test("a test binary importing WASI 0.2 functions the binding has gets an envelope without its DWARF", () => {
  const sdk = coreModule("wasi:io/poll@0.2.4", "poll", ".debug_info");
  const envelope = leanEnvelope(sdk)!;
  assert.ok(envelope, "bound: wasi:io/poll");
  const main = mainModuleOf(envelope);
  assert.equal(main.kind, "component");
  assert.deepEqual(listImports(main.bytes).map((i) => i.name), ["poll"]);
  assert.ok(main.bytes.length < sdk.length - 64, "the .debug_ section is gone");
  // Anything else takes jco's adapter.
  assert.equal(leanEnvelope(coreModule("wasi:keyvalue/store@0.2.0", "open", "name")), null);
});
