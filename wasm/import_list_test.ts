import { strict as assert } from "node:assert";
import { Writer } from "./binary.ts";
import { SECTION, splitSections } from "./sections.ts";
import { listImports } from "./import_list.ts";

/** A module whose import section holds one import of each kind. */
function moduleWithImports(): Uint8Array {
  const imports = new Writer().u32(6)
    .name("env").name("f").u8(0x00).u32(0) // function of type 0
    .name("env").name("t").u8(0x01).u8(0x64).u8(0x70).u8(0x01).u32(1).u32(2) // (ref null func) table, 1..2
    .name("env").name("m").u8(0x02).u8(0x00).u32(3) // memory, 3 pages, no maximum
    .name("env").name("m64").u8(0x02).u8(0x05).u32(1).u32(9) // 64-bit memory, 1..9
    .name("env").name("g").u8(0x03).u8(0x7f).u8(0x01) // mutable i32 global
    .name("env").name("e").u8(0x04).u8(0x00).u32(0) // tag of type 0
    .view();
  const types = new Writer().u32(1).u8(0x60).u32(0).u32(0).view();
  return new Writer().bytes(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]))
    .u8(SECTION.type).u32(types.length).bytes(types)
    .u8(SECTION.import).u32(imports.length).bytes(imports)
    .view().slice();
}

Deno.test("listImports reads every kind of import, with a memory's limits", () => {
  const bytes = moduleWithImports();
  const want = [
    { module: "env", name: "f", kind: "function" },
    { module: "env", name: "t", kind: "table" },
    { module: "env", name: "m", kind: "memory", memory: { flags: 0, initial: 3 } },
    { module: "env", name: "m64", kind: "memory", memory: { flags: 5, initial: 1, maximum: 9 } },
    { module: "env", name: "g", kind: "global" },
    { module: "env", name: "e", kind: "tag" },
  ];
  assert.deepEqual(listImports(bytes), want);
  assert.deepEqual(listImports(splitSections(bytes)), want, "from sections already split");
});

Deno.test("listImports: none without an import section; an unknown kind is an error", () => {
  const empty = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
  assert.deepEqual(listImports(empty), []);
  const body = new Writer().u32(1).name("env").name("x").u8(0x09).view();
  const bad = new Writer().bytes(empty).u8(SECTION.import).u32(body.length).bytes(body).view();
  assert.throws(() => listImports(bad), /unknown import kind 9/);
});
