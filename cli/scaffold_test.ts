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

Deno.test("a new plugin's source is as cargo fmt writes it", async () => {
  const dir = await Deno.makeTempDir();
  for (const name of ["hello", "weather_forecast"]) {
    for (const [rel, text] of Object.entries(pluginFiles(name))) {
      await Deno.mkdir(`${dir}/${name}/${rel}`.replace(/\/[^/]+$/, ""), { recursive: true });
      await Deno.writeTextFile(`${dir}/${name}/${rel}`, text);
    }
    const out = await new Deno.Command("rustfmt", {
      args: ["--check", "--edition", "2024", `${dir}/${name}/src/main.rs`],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stdout));
  }
  await Deno.remove(dir, { recursive: true });
});
