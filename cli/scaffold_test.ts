import { strict as assert } from "node:assert";
import { pluginFiles, typeName } from "./scaffold.ts";

Deno.test("typeName makes a Rust type name of any plugin name", () => {
  assert.equal(typeName("notes"), "Notes");
  assert.equal(typeName("notes-db_2"), "NotesDb2");
  assert.equal(typeName("2fa"), "P2fa");
});

Deno.test("a new plugin's crate is named after it, and documents every item", () => {
  const files = pluginFiles("my_notes");
  assert.match(files["Cargo.toml"], /name = "my-notes"/);
  assert.match(files["Cargo.toml"], /sausage-plugin = "0.1"/);
  const main = files["src/main.rs"];
  for (const item of ["struct MyNotes;", "struct GreetParams", "struct Greeting", "fn greet"]) {
    const before = main.slice(0, main.indexOf(item)).trimEnd().split("\n");
    assert.ok(
      before.some((l, i) => i >= before.length - 3 && /^\s*(\/\/\/|#\[)/.test(l)),
      `${item} has a doc comment`,
    );
  }
  assert.match(main, /#\[test\]/);
  assert.match(main, /#\[sausage_plugin::test\]/);
});
