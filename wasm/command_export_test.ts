import { strict as assert } from "node:assert";
import { Writer } from "./binary.ts";
import { unwrapCommandExport } from "./command_export.ts";

/** A section: id, size, content. */
function section(id: number, content: Writer): Writer {
  return new Writer().u8(id).u32(content.length).bytes(content.view());
}

/**
 * A command-like module: `ctors` counts into a global, `inner` doubles its
 * param, `f` is wasm-ld's wrapper around `inner`; `g` is not a wrapper.
 */
function commandModule(): Uint8Array {
  const types = new Writer().u32(2)
    .u8(0x60).u32(0).u32(0) // () -> ()
    .u8(0x60).u32(1).u8(0x7f).u32(1).u8(0x7f); // (i32) -> i32
  const funcs = new Writer().u32(5).u32(0).u32(1).u32(0).u32(1).u32(1);
  const globals = new Writer().u32(1).u8(0x7f).u8(1).u8(0x41).u8(0).u8(0x0b);
  const exports = new Writer().u32(3)
    .name("f").u8(0).u32(3)
    .name("g").u8(0).u32(4)
    .name("calls").u8(3).u32(0);
  const body = (code: number[]) => {
    const b = new Writer().u32(0).bytes(new Uint8Array(code));
    return new Writer().u32(b.length).bytes(b.view());
  };
  const codes = [
    body([0x23, 0, 0x41, 1, 0x6a, 0x24, 0, 0x0b]), // ctors: calls += 1
    body([0x20, 0, 0x41, 2, 0x6c, 0x0b]), // inner: x * 2
    body([0x0b]), // dtors
    body([0x10, 0, 0x20, 0, 0x10, 1, 0x10, 2, 0x0b]), // f: the wrapper
    body([0x10, 0, 0x20, 0, 0x10, 1, 0x0b]), // g: calls ctors, but is no wrapper
  ];
  const code = new Writer().u32(codes.length);
  for (const c of codes) code.bytes(c.view());
  return new Writer()
    .bytes(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]))
    .bytes(section(1, types).view())
    .bytes(section(3, funcs).view())
    .bytes(section(6, globals).view())
    .bytes(section(7, exports).view())
    .bytes(section(10, code).view())
    .view().slice();
}

type Exports = { f(x: number): number; g(x: number): number; calls: WebAssembly.Global };

Deno.test("a wrapped export is pointed at the function inside; others stay", async () => {
  const before = (await WebAssembly.instantiate(commandModule() as BufferSource)).instance
    .exports as unknown as Exports;
  assert.equal(before.f(21), 42);
  assert.equal(before.calls.value, 1, "the wrapper runs the constructors");

  const bytes = unwrapCommandExport(commandModule(), "f");
  const after = (await WebAssembly.instantiate(bytes as BufferSource)).instance
    .exports as unknown as Exports;
  assert.equal(after.f(21), 42);
  assert.equal(after.calls.value, 0, "the constructors did not run");
  assert.equal(after.g(1), 2);
  assert.equal(after.calls.value, 1, "g is not a wrapper: unchanged");
  assert.equal(unwrapCommandExport(commandModule(), "g").length, commandModule().length);
  const m = commandModule();
  assert.equal(unwrapCommandExport(m, "missing"), m, "no such export: the same bytes");
});
