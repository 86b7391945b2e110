import { strict as assert } from "node:assert";
import { colorWanted, makeStyle, stripStyle } from "./style.ts";

Deno.test("colour only on a terminal and without NO_COLOR", () => {
  const env = (vars: Record<string, string>) => (name: string) => vars[name];
  assert.equal(colorWanted(true, env({})), true);
  assert.equal(colorWanted(true, env({ NO_COLOR: "1" })), false);
  assert.equal(colorWanted(true, env({ NO_COLOR: "" })), true, "an empty NO_COLOR is unset");
  assert.equal(colorWanted(false, env({})), false);
});

Deno.test("styles wrap text in colour codes only when colour is on", () => {
  assert.equal(makeStyle(false).red("no"), "no");
  assert.equal(makeStyle(true).red("no"), "\x1b[31mno\x1b[39m");
  assert.equal(stripStyle(makeStyle(true).dim("x")), "x");
});
