import { strict as assert } from "node:assert";
import {
  approximate,
  approximateNumber,
  bigInteger,
  deeperThan,
  type ExactNumber,
  floorDouble,
  holdsBigInteger,
  holdsExactNumber,
  isBigInteger,
  isExactNumber,
  JsonDepthError,
  MAX_DEPTH,
  parseExact,
} from "./exact_json.ts";
import { compileSchema } from "./schema_validator.ts";

const U64_MAX = "18446744073709551615";
const I64_MIN = "-9223372036854775808";

Deno.test("parseExact: integers beyond 2^53 come back out exactly", () => {
  const text = `{"n":${U64_MAX},"m":${I64_MIN},"a":[1,${U64_MAX}1,{"k":9007199254740993}]}`;
  const v = parseExact(text) as Record<string, unknown>;
  assert.deepEqual(JSON.stringify(v), text);
  assert(isBigInteger(v.n));
  assert(holdsBigInteger(v) && holdsBigInteger(v.a));
});

Deno.test("parseExact: numbers a double keeps are plain numbers", () => {
  const v = parseExact(
    `{"safe":9007199254740991,"f":1.5,"g":-0.25,"z":0,"s":"${U64_MAX}","t":"x:1.5e3"}`,
  ) as Record<string, unknown>;
  assert.deepEqual(v, { safe: 9007199254740991, f: 1.5, g: -0.25, z: 0, s: U64_MAX, t: "x:1.5e3" });
  assert(!holdsExactNumber(v));
});

Deno.test("parseExact: every other number comes back out as its text", () => {
  const numbers = [
    "0.1000000000000000055511151231257827",
    "1e400",
    "-1e-400",
    "-0",
    "1.0",
    "1E2",
    "1.5e300",
    "12345678901234567e3",
    "100.00",
  ];
  const text = `{"a":[${numbers.join(",")}],"o":{"x":-0},"n":1e2}`;
  const v = parseExact(text) as Record<string, unknown>;
  assert.equal(JSON.stringify(v), text);
  assert(holdsExactNumber(v) && isExactNumber(v.n));
  for (const n of numbers) assert.equal(JSON.stringify(parseExact(n)), n);
  assert.equal(JSON.stringify(parseExact(" [ -0 , 1.0 ] ")), "[-0,1.0]");
  assert.deepEqual(approximate(v), {
    a: [0.1, Infinity, -0, -0, 1, 100, 1.5e300, 12345678901234567e3, 100],
    o: { x: -0 },
    n: 100,
  });
  assert(Object.is(approximateNumber(parseExact("-0") as ExactNumber), -0));
});

Deno.test("parseExact: nesting past MAX_DEPTH is refused before any walk", () => {
  const nest = (d: number) => "[".repeat(d) + "]".repeat(d);
  assert.equal(JSON.stringify(parseExact(nest(MAX_DEPTH))), nest(MAX_DEPTH));
  assert.throws(() => parseExact(nest(MAX_DEPTH + 1)), JsonDepthError);
  assert.throws(() => parseExact(`{"n":1.5,"a":${nest(10_000)}}`), /deeper than 512 levels/);
  // Brackets inside strings (with escaped quotes) do not count.
  const quoted = JSON.stringify({ s: '\\"' + "[".repeat(2000), a: [1.5] });
  assert.deepEqual(parseExact(quoted), JSON.parse(quoted));
  assert(!deeperThan(quoted, 2));
  assert(deeperThan('{"a":"]]]","b":[[[1]]]}', 3));
});

Deno.test("floorDouble rounds down, never up", () => {
  assert.deepEqual(floorDouble(U64_MAX), 2 ** 64 - 2048);
  assert.deepEqual(floorDouble("18446744073709551616"), 2 ** 64);
  assert.deepEqual(floorDouble(I64_MIN), -(2 ** 63));
  assert.deepEqual(floorDouble("-9223372036854775809"), -(2 ** 63) - 2048);
  assert.deepEqual(floorDouble("9007199254740993"), 9007199254740992);
});

Deno.test("schema checks: big integers as integers of their sign and range", () => {
  const nonNegative = compileSchema({ type: "integer", minimum: 0 }, {});
  const u64 = compileSchema({ type: "integer", format: "uint64", minimum: 0 }, {});
  const i64 = compileSchema({ type: "integer", format: "int64" }, {});
  const obj = compileSchema({ type: "object" }, {});
  const big = (t: string) => parseExact(t);
  assert(nonNegative(big(U64_MAX)));
  assert(u64(big(U64_MAX)));
  assert(!u64(big("18446744073709551616")));
  assert(!nonNegative(big(I64_MIN)));
  assert(i64(big(I64_MIN)));
  assert(!i64(big("-9223372036854775809")));
  assert(!obj(big(U64_MAX)));
  assert(obj(big(`{"n":${U64_MAX}}`)));
  assert(
    compileSchema({
      type: "object",
      properties: { n: { type: "integer", minimum: 0 } },
    }, {})({ n: bigInteger(2n ** 64n - 1n) }),
  );
  assert.deepEqual(approximate({ a: [bigInteger(10n ** 20n)] }), { a: [1e20] });
});

Deno.test("approximate keeps a __proto__ key a key", () => {
  const v = approximate(parseExact(`{"__proto__":{"n":${U64_MAX}}}`)) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(v), Object.prototype);
  assert.deepEqual(Object.keys(v), ["__proto__"]);
});
