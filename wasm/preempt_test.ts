import { strict as assert } from "node:assert";
import { Writer } from "./binary.ts";
import {
  BULK_BYTES,
  BULK_IMPORT,
  CHECK_IMPORT,
  clearRewrites,
  EXPIRE_EXPORT,
  GROW_IMPORT,
  INITIAL_FUEL,
  instrumentModule,
  PREEMPT_MODULE,
  YIELD_IMPORT,
} from "./preempt.ts";

/** A section: id, then the length-prefixed body. */
function section(w: Writer, id: number, body: Writer): void {
  w.u8(id).u32(body.length).bytes(body.view());
}

/** A function body: its locals and code, length-prefixed. */
function func(locals: number[][], code: number[]): Uint8Array {
  const b = new Writer().u32(locals.length);
  for (const [count, type] of locals) b.u32(count).u8(type);
  b.bytes(new Uint8Array(code)).u8(0x0b);
  return new Writer().u32(b.length).bytes(b.view()).view().slice();
}

/**
 * A module with an imported `env.id: (i32) -> i32` (so defined functions
 * move when imports are added), a counting loop, a recursive factorial that
 * also calls the import, an exported `grow` of its memory and a `fill` of it.
 */
function testModule(extraImports = 0): Uint8Array {
  const w = new Writer().bytes(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  section(w, 1, new Writer().u32(1).u8(0x60).u32(1).u8(0x7f).u32(1).u8(0x7f)); // (i32) -> i32
  const imports = new Writer().u32(1 + extraImports).name("env").name("id").u8(0).u32(0);
  for (let i = 0; i < extraImports; i++) imports.name("env").name(`more${i}`).u8(0).u32(0);
  section(w, 2, imports);
  section(w, 3, new Writer().u32(4).u32(0).u32(0).u32(0).u32(0));
  section(w, 5, new Writer().u32(1).u8(0).u32(4));
  const exports = new Writer().u32(4);
  exports.name("count").u8(0).u32(1).name("fact").u8(0).u32(2).name("grow").u8(0).u32(3);
  exports.name("fill").u8(0).u32(4);
  section(w, 7, exports);
  const code = new Writer().u32(4);
  // count(n): i = 0; while (n != 0) { n--; i++ }; i
  code.bytes(func([[1, 0x7f]], [
    0x02,
    0x40,
    0x03,
    0x40, // block loop
    0x20,
    0,
    0x45,
    0x0d,
    1, // local.get 0; i32.eqz; br_if 1
    0x20,
    0,
    0x41,
    1,
    0x6b,
    0x21,
    0, // n--
    0x20,
    1,
    0x41,
    1,
    0x6a,
    0x21,
    1, // i++
    0x0c,
    0,
    0x0b,
    0x0b, // br 0; end; end
    0x20,
    1,
  ]));
  // fact(n): n == 0 ? 1 : id(n * fact(n - 1))
  code.bytes(func([], [
    0x20,
    0,
    0x45,
    0x04,
    0x7f,
    0x41,
    1,
    0x05, // if (result i32) 1 else
    0x20,
    0,
    0x20,
    0,
    0x41,
    1,
    0x6b,
    0x10,
    2,
    0x6c,
    0x10,
    0, // n * fact(n-1), id(...)
    0x0b,
  ]));
  code.bytes(func([], [0x20, 0, 0x40, 0])); // grow(delta): memory.grow 0
  // fill(n): memory.fill 0 with zeroes of bytes [0, n); n
  code.bytes(func([], [0x41, 0, 0x41, 0, 0x20, 0, 0xfc, 11, 0, 0x20, 0]));
  section(w, 10, code);
  return w.view().slice();
}

Deno.test("an instrumented module computes the same, checks its loops and recursion, and asks before growing", () => {
  const out = instrumentModule(testModule())!;
  assert.ok(WebAssembly.validate(out.bytes));
  assert.deepEqual(
    out.stats,
    { entries: 1, loops: 1, grows: 1, bulk: 1 },
    "fact recurses; count does not",
  );
  let checks = 0, yields = 0;
  const grows: [number, number][] = [];
  const instance = new WebAssembly.Instance(new WebAssembly.Module(out.bytes), {
    env: { id: (x: number) => x },
    [PREEMPT_MODULE]: {
      [CHECK_IMPORT]: () => (++checks % 2 ? 0 : 1000), // every other check asks for a yield
      [YIELD_IMPORT]: () => (yields++, 1000),
      [BULK_IMPORT]: () => 1,
      [GROW_IMPORT]: (delta: number, size: number) => {
        grows.push([delta, size]);
        return size + delta > 6 ? -1 : delta;
      },
    },
  });
  const { count, fact, grow, fill } = instance.exports as Record<string, (n: number) => number>;
  const expire = instance.exports[EXPIRE_EXPORT] as () => void;
  // INITIAL_FUEL + 5,001 loop headers: out of fuel at INITIAL_FUEL, then every 1,000.
  assert.equal(count(INITIAL_FUEL + 5000), INITIAL_FUEL + 5000);
  assert.equal(checks, 6, "the fuel ran out six times");
  assert.equal(yields, 3, "every other check asked for a yield");
  assert.equal(fact(10), 3628800);
  assert.equal(grow(1), 4, "within the limit: grown, the old size returned");
  assert.equal(grow(5), -1, "past the limit: the grow fails");
  assert.deepEqual(grows, [[1, 4], [5, 5]]);
  // After expire() the next header checks; bulk work leaves the loops' fuel alone.
  count(5000); // runs to just after a check: 1000 fuel left, minus what it used
  const before = checks;
  expire();
  count(0);
  assert.equal(checks, before + 1, "expire makes the next loop header check");
  count(10);
  for (let i = 0; i < 70; i++) fill(65536);
  count(0);
  assert.equal(checks, before + 1, "fills cost the loops no fuel");
});

/**
 * A module with a memory of `pages` and exports `fill(d, v, n)` and
 * `copy(d, s, n)`, each one bulk instruction.
 */
function bulkModule(pages: number): Uint8Array {
  const w = new Writer().bytes(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  section(w, 1, new Writer().u32(1).u8(0x60).u32(3).u8(0x7f).u8(0x7f).u8(0x7f).u32(0));
  section(w, 3, new Writer().u32(2).u32(0).u32(0));
  section(w, 5, new Writer().u32(1).u8(0).u32(pages));
  const exports = new Writer().u32(3).name("fill").u8(0).u32(0).name("copy").u8(0).u32(1);
  exports.name("memory").u8(2).u32(0);
  section(w, 7, exports);
  const code = new Writer().u32(2);
  code.bytes(func([], [0x20, 0, 0x20, 1, 0x20, 2, 0xfc, 11, 0]));
  code.bytes(func([], [0x20, 0, 0x20, 1, 0x20, 2, 0xfc, 10, 0, 0]));
  section(w, 10, code);
  return w.view().slice();
}

Deno.test("bulk operations go in chunks with a look at the clock between two, and do what the instruction does", () => {
  const out = instrumentModule(bulkModule(128))!; // 8 MiB
  assert.ok(WebAssembly.validate(out.bytes));
  assert.equal(out.stats.bulk, 2);
  let looks = 0, yields = 0;
  const instance = new WebAssembly.Instance(new WebAssembly.Module(out.bytes), {
    [PREEMPT_MODULE]: {
      [CHECK_IMPORT]: () => 1000,
      [YIELD_IMPORT]: () => (yields++, 1000),
      [BULK_IMPORT]: () => (++looks % 2 ? 1 : 0), // every other look asks for a yield
      [GROW_IMPORT]: (delta: number) => delta,
    },
  });
  const { fill, copy } = instance.exports as Record<
    string,
    (a: number, b: number, c: number) => void
  >;
  const mem = new Uint8Array((instance.exports.memory as WebAssembly.Memory).buffer);
  const size = mem.length;
  fill(0, 1, 1000);
  assert.equal(looks, 0, "a small fill is paid by the budget");
  fill(0, 7, size); // 8 MiB: past the budget, in chunks of BULK_BYTES
  assert.ok(mem.every((b) => b === 7), "every byte filled");
  const chunks = size / BULK_BYTES;
  assert.ok(looks >= chunks - 1 && looks <= chunks, `${looks} looks at the clock`);
  assert.equal(yields, Math.floor(looks / 2), "a look that says so yields");
  // Copies in chunks, overlapping both ways, as memmove does.
  for (let i = 0; i < size; i++) mem[i] = i % 251;
  const expect = (d: number, s: number, n: number) => {
    const want = mem.slice();
    want.copyWithin(d, s, s + n);
    copy(d, s, n);
    assert.ok(mem.every((b, i) => b === want[i]), `copy(${d}, ${s}, ${n})`);
  };
  expect(12345, 0, 3 * BULK_BYTES + 77); // destination above the source: from the end
  expect(0, 54321, 3 * BULK_BYTES + 5); // below: from the start
  expect(BULK_BYTES * 4, 0, BULK_BYTES * 4);
  // Out of bounds: a trap, and nothing written.
  const before = mem.slice();
  assert.throws(() => fill(size - 2 * BULK_BYTES, 9, 2 * BULK_BYTES + 1), WebAssembly.RuntimeError);
  assert.throws(() => copy(0, size - 3 * BULK_BYTES, 3 * BULK_BYTES + 1), WebAssembly.RuntimeError);
  assert.throws(() => copy(size - 3 * BULK_BYTES, 0, 3 * BULK_BYTES + 1), WebAssembly.RuntimeError);
  assert.ok(mem.every((b, i) => b === before[i]), "nothing written by a bulk operation that traps");
});

Deno.test("a module without code is left alone; a component is refused", () => {
  const empty = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
  assert.equal(instrumentModule(empty), null);
  const component = new Uint8Array([0, 0x61, 0x73, 0x6d, 0x0d, 0, 1, 0]);
  assert.throws(() => instrumentModule(component), /not a core module/);
});

Deno.test("a module instrumented again reuses its bodies' rewrites, and only under the same indices", () => {
  clearRewrites();
  const fresh = instrumentModule(testModule())!;
  const again = instrumentModule(testModule())!;
  assert.deepEqual(again.bytes, fresh.bytes);
  assert.deepEqual(again.stats, fresh.stats);
  // The same bodies in a module with another import: every index moves, so nothing is reused.
  const moved = instrumentModule(testModule(1))!;
  clearRewrites();
  const movedFresh = instrumentModule(testModule(1))!;
  assert.deepEqual(moved.bytes, movedFresh.bytes);
  assert.notDeepEqual(moved.bytes.length === fresh.bytes.length && moved.bytes, fresh.bytes);
  assert.deepEqual(moved.stats, movedFresh.stats);
});
