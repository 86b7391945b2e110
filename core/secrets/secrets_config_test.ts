import { strict as assert } from "node:assert";
import { parseSecretGrants, readSecretGrants } from "./secrets_config.ts";

Deno.test("config/secrets.json grants each secret to the plugins it lists", () => {
  const { grants, problems } = parseSecretGrants({
    OPENAI_API_KEY: { plugins: ["agent"] },
    DB: { plugins: ["notes", "www"] },
    NOBODY: { plugins: [] },
  });
  assert.deepEqual(problems, []);
  assert.deepEqual([...grants.get("OPENAI_API_KEY")!], ["agent"]);
  assert.deepEqual([...grants.get("DB")!], ["notes", "www"]);
  assert.equal(grants.get("NOBODY")!.size, 0);
  assert.equal(grants.get("OTHER"), undefined);
});

Deno.test("a bad entry is reported with the file, the key and what is used; the rest applies", () => {
  const { grants, problems } = parseSecretGrants({
    "bad-name": { plugins: ["agent"] },
    NOT_OBJECT: "agent",
    NO_LIST: { plugins: "agent" },
    MIXED: { plugins: ["agent", "Bad Name", 3, "core"], extra: true },
    GOOD: { plugins: ["agent"] },
  });
  assert.deepEqual([...grants.keys()], ["MIXED", "GOOD"]);
  assert.deepEqual([...grants.get("MIXED")!], ["agent"]);
  const has = (re: RegExp) => assert.ok(problems.some((p) => re.test(p)), `${re}: ${problems}`);
  has(/^config\/secrets.json: "bad-name" is not a secret's name .*; the entry is ignored$/);
  has(/^config\/secrets.json: "NOT_OBJECT" must be \{"plugins".*no plugin may read NOT_OBJECT$/);
  has(/^config\/secrets.json: "NO_LIST" must be .*no plugin may read NO_LIST$/);
  has(/"MIXED": unknown key "extra" ignored \(known: plugins\)/);
  has(/"MIXED".plugins: plugin names are .*"Bad Name" is not; it is ignored/);
  has(/"MIXED".plugins: a plugin name must be a string, not 3; it is ignored/);
  has(/"MIXED".plugins: "core" is reserved/);
  assert.equal(problems.length, 7);
  assert.match(parseSecretGrants([1]).problems[0], /must be an object of secret names/);
});

Deno.test("config/secrets.json is read as JSONC; a syntax error names the place and grants nothing", async () => {
  const root = await Deno.makeTempDir({ prefix: "sausage-world-" });
  try {
    assert.deepEqual(readSecretGrants(root), { grants: new Map(), problems: [] });
    await Deno.mkdir(`${root}/config`);
    await Deno.writeTextFile(
      `${root}/config/secrets.json`,
      '{\n  // the agent\'s key\n  "K": {"plugins": ["agent"],},\n}\n',
    );
    assert.deepEqual([...readSecretGrants(root).grants.get("K")!], ["agent"]);
    await Deno.writeTextFile(`${root}/config/secrets.json`, '{"K": {"plugins": ["agent"]}');
    const { grants, problems } = readSecretGrants(root);
    assert.equal(grants.size, 0);
    assert.match(problems[0], /^config\/secrets.json:1:\d+: .*; no plugin may read a secret$/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
