import { strict as assert } from "node:assert";
import { Writer } from "./binary.ts";
import {
  BULK_FUEL_SHIFT,
  CHECK_IMPORT,
  FUEL_EXPORT,
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
function testModule(): Uint8Array {
  const w = new Writer().bytes(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  section(w, 1, new Writer().u32(1).u8(0x60).u32(1).u8(0x7f).u32(1).u8(0x7f)); // (i32) -> i32
  section(w, 2, new Writer().u32(1).name("env").name("id").u8(0).u32(0));
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
      [GROW_IMPORT]: (delta: number, size: number) => {
        grows.push([delta, size]);
        return size + delta > 6 ? -1 : delta;
      },
    },
  });
  const { count, fact, grow, fill } = instance.exports as Record<string, (n: number) => number>;
  const fuel = instance.exports[FUEL_EXPORT] as WebAssembly.Global;
  assert.equal(fuel.value, INITIAL_FUEL, "the fuel is exported");
  // INITIAL_FUEL + 5,001 loop headers: out of fuel at INITIAL_FUEL, then every 1,000.
  assert.equal(count(INITIAL_FUEL + 5000), INITIAL_FUEL + 5000);
  assert.equal(checks, 6, "the fuel ran out six times");
  assert.equal(yields, 3, "every other check asked for a yield");
  assert.equal(fact(10), 3628800);
  assert.equal(grow(1), 4, "within the limit: grown, the old size returned");
  assert.equal(grow(5), -1, "past the limit: the grow fails");
  assert.deepEqual(grows, [[1, 4], [5, 5]]);
  // A memory.fill charges its size: one unit per 2^BULK_FUEL_SHIFT bytes, at least 1 left.
  fuel.value = 1000;
  fill(10 << BULK_FUEL_SHIFT);
  assert.equal(fuel.value, 990);
  fill(65536);
  assert.equal(fuel.value, 990 - (65536 >> BULK_FUEL_SHIFT));
  fuel.value = 20;
  fill(3 * 65536);
  assert.equal(fuel.value, 1, "charged past zero: the next loop header checks");
  assert.equal(checks, 6, "a fill itself does not check");
});

Deno.test("a module without code is left alone; a component is refused", () => {
  const empty = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
  assert.equal(instrumentModule(empty), null);
  const component = new Uint8Array([0, 0x61, 0x73, 0x6d, 0x0d, 0, 1, 0]);
  assert.throws(() => instrumentModule(component), /not a core module/);
});
