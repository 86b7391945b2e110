import { strict as assert } from "node:assert";
import { ConfigSyntaxError, parseConfig, readConfigFile } from "./config_file.ts";

Deno.test("config files take comments and trailing commas", () => {
  const text = `// the boot calls
[
  /* one call */ {"method": "notes.add", "params": {"text": "hi",},}, // trailing
]
`;
  assert.deepEqual(parseConfig(text, "config/boot.json"), [
    { method: "notes.add", params: { text: "hi" } },
  ]);
  assert.deepEqual(parseConfig('{"a": "// not a comment"}', "x"), { a: "// not a comment" });
});

Deno.test("a syntax error names the file, line and column, and what to do", () => {
  const text = '{\n  "processes": 10\n  "sandboxes": 2\n}';
  assert.throws(() => parseConfig(text, "config/limits.json"), (e: unknown) => {
    assert.ok(e instanceof ConfigSyntaxError);
    assert.equal(e.line, 3);
    assert.equal(e.column, 3);
    assert.match(e.message, /^config\/limits\.json:3:3: a comma was expected: fix the file/);
    return true;
  });
  assert.throws(() => parseConfig("  \n", "config/agent.json"), /agent\.json:2:1: a value was/);
  assert.throws(() => parseConfig("{} /* open", "c"), /c:1:4: a \/\* comment is not closed/);
});

Deno.test("a missing config file is undefined; a present one is parsed", () => {
  const dir = Deno.makeTempDirSync();
  try {
    assert.equal(readConfigFile(dir, "config/boot.json"), undefined);
    Deno.mkdirSync(`${dir}/config`);
    Deno.writeTextFileSync(`${dir}/config/boot.json`, "[] // none");
    assert.deepEqual(readConfigFile(dir, "config/boot.json"), []);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
