// Tests of __PLUGIN__: every exported function of a `*_test.ts` file is a test, run by
// `sausage build` before it builds (each in its own process, on an empty world).
import { assert, assertEquals } from "sausage";
import { greet } from "./plugin";

/** greet says hello by name, and counts. */
export function greets_by_name() {
  assertEquals(greet({ name: "Ada" }), { text: "Hello, Ada!", count: 1 });
  assertEquals(greet({}).count, 2);
}

/** greet refuses a name that is too long. */
export function refuses_long_names() {
  let threw = false;
  try {
    greet({ name: new Array(102).join("x") });
  } catch (_e) {
    threw = true;
  }
  assert(threw, "a 101-character name was greeted");
}
