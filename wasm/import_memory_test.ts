import { strict as assert } from "node:assert";
import { Writer } from "./binary.ts";
import { importMemory, MEMORY_IMPORT, memoryImportOf } from "./import_memory.ts";

/** A module with `env.f` imported, a memory of `limits` and "hi" at byte 16, exporting `load`. */
function testModule(limits: number[], memoryImported = false): Uint8Array {
  const w = new Writer().bytes(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  const section = (id: number, body: Writer) => w.u8(id).u32(body.length).bytes(body.view());
  section(1, new Writer().u32(1).u8(0x60).u32(1).u8(0x7f).u32(1).u8(0x7f)); // (i32) -> i32
  const imports = new Writer().u32(memoryImported ? 2 : 1).name("env").name("f").u8(0).u32(0);
  if (memoryImported) imports.name("env").name("memory").u8(2).bytes(new Uint8Array(limits));
  section(2, imports);
  section(3, new Writer().u32(1).u32(0));
  if (!memoryImported) section(5, new Writer().u32(1).bytes(new Uint8Array(limits)));
  section(7, new Writer().u32(1).name("load").u8(0).u32(1));
  // load(p) = i32.load8_u(p)
  const body = new Writer().u32(0).bytes(new Uint8Array([0x20, 0, 0x2d, 0, 0, 0x0b]));
  section(10, new Writer().u32(1).u32(body.length).bytes(body.view()));
  const data = new Writer().u32(1).u8(0).bytes(new Uint8Array([0x41, 16, 0x0b])).u32(2)
    .bytes(new TextEncoder().encode("hi"));
  section(11, data);
  return w.view().slice();
}

const env = { env: { f: (x: number) => x } };

Deno.test("a module's own memory becomes an import with its limits; data still lands in it", () => {
  const out = importMemory(testModule([0, 2]));
  assert.ok(out);
  assert.deepEqual(out.limits, { initial: 2 });
  assert.deepEqual(memoryImportOf(out.bytes), { initial: 2 });
  const module = new WebAssembly.Module(out.bytes);
  assert.deepEqual(
    WebAssembly.Module.imports(module).map((i) => `${i.module}/${i.name}:${i.kind}`),
    ["env/f:function", `${MEMORY_IMPORT.module}/${MEMORY_IMPORT.name}:memory`],
  );
  const memory = new WebAssembly.Memory({ initial: 3 }); // a larger pooled one fits too
  const instance = new WebAssembly.Instance(module, {
    ...env,
    [MEMORY_IMPORT.module]: { [MEMORY_IMPORT.name]: memory },
  });
  const load = instance.exports.load as (p: number) => number;
  assert.equal(load(16), "h".charCodeAt(0));
  assert.equal(new Uint8Array(memory.buffer)[17], "i".charCodeAt(0));
});

Deno.test("a maximum is kept; modules that import a memory or have none are left alone", () => {
  assert.deepEqual(importMemory(testModule([1, 1, 4]))?.limits, { initial: 1, maximum: 4 });
  assert.equal(importMemory(testModule([0, 1], true)), null);
  assert.equal(memoryImportOf(testModule([0, 1], true)), undefined);
  const noMemory = new Writer().bytes(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  assert.equal(importMemory(noMemory.view()), null);
});
