import { strict as assert } from "node:assert";
import {
  readSecretStore,
  removeSecret,
  SecretStoreError,
  setSecret,
  writeSecretStore,
} from "./secret_store.ts";
import { secretsDir, secretsFilePath } from "./secrets_path.ts";
import { worldKey } from "../control/control_path.ts";

/** A fresh folder for a test's secrets, removed after `fn`. */
async function inTemp(fn: (dir: string) => void | Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "sausage-secrets-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const mode = (path: string) => (Deno.statSync(path).mode ?? 0) & 0o777;

Deno.test("a set makes the folder 0700 and the file 0600, written whole; rm removes one", () =>
  inTemp((tmp) => {
    const path = `${tmp}/secrets/w.json`;
    setSecret(path, "/w", "A_KEY", "one");
    setSecret(path, "/w", "B_KEY", "two\nlines");
    assert.equal(mode(`${tmp}/secrets`), 0o700);
    assert.equal(mode(path), 0o600);
    assert.deepEqual(readSecretStore(path, "/w"), {
      world: "/w",
      secrets: { A_KEY: "one", B_KEY: "two\nlines" },
    });
    assert.equal(removeSecret(path, "/w", "A_KEY"), true);
    assert.equal(removeSecret(path, "/w", "A_KEY"), false);
    assert.deepEqual(readSecretStore(path, "/w").secrets, { B_KEY: "two\nlines" });
    assert.deepEqual([...Deno.readDirSync(`${tmp}/secrets`)].map((e) => e.name), ["w.json"]);
  }));

Deno.test("no file is an empty store; a bad name or an empty value is refused", () =>
  inTemp((tmp) => {
    const path = `${tmp}/w.json`;
    assert.deepEqual(readSecretStore(path, "/w"), { world: "/w", secrets: {} });
    assert.throws(() => setSecret(path, "/w", "a-b", "x"), /not a secret's name/);
    assert.throws(() => setSecret(path, "/w", "OK", ""), /empty/);
    assert.throws(() => setSecret(path, "/w", "OK", "x".repeat(70_000)), /more than 65536/);
  }));

Deno.test("a link at the file's place is refused, never read or written through", () =>
  inTemp((tmp) => {
    const target = `${tmp}/elsewhere.json`;
    Deno.writeTextFileSync(target, '{"secrets": {"PLANTED": "x"}}', { mode: 0o600 });
    Deno.mkdirSync(`${tmp}/secrets`, { mode: 0o700 });
    const path = `${tmp}/secrets/w.json`;
    Deno.symlinkSync(target, path);
    assert.throws(() => readSecretStore(path, "/w"), SecretStoreError);
    assert.throws(() => setSecret(path, "/w", "A_KEY", "value-1"), /is a link, not a file/);
    assert.equal(Deno.readTextFileSync(target), '{"secrets": {"PLANTED": "x"}}');
    assert.ok(Deno.lstatSync(path).isSymlink);
    // A link as the folder is refused too.
    const folderLink = `${tmp}/linked`;
    Deno.symlinkSync(`${tmp}/secrets`, folderLink);
    assert.throws(() => writeSecretStore(`${folderLink}/w.json`, { world: "/w", secrets: {} }));
  }));

Deno.test("a file others may read is refused; a damaged file's error never quotes it", () =>
  inTemp((tmp) => {
    const path = `${tmp}/w.json`;
    Deno.writeTextFileSync(path, '{"secrets": {"K": "sk-do-not-print"}}', { mode: 0o644 });
    Deno.chmodSync(path, 0o644);
    assert.throws(() => readSecretStore(path, "/w"), /mode 0644\): refused; chmod 600/);
    Deno.writeTextFileSync(path, '{"secrets": {"K": "sk-do-not-print"', { mode: 0o600 });
    Deno.chmodSync(path, 0o600);
    assert.throws(
      () => readSecretStore(path, "/w"),
      (e: Error) => /not JSON/.test(e.message) && !e.message.includes("sk-do-not-print"),
    );
  }));

Deno.test("the file is named by the world key, in SAUSAGE_SECRETS_DIR or XDG_CONFIG_HOME", async () => {
  const env = (vars: Record<string, string>) => (name: string) => vars[name];
  assert.equal(secretsDir(env({ SAUSAGE_SECRETS_DIR: "/s/", HOME: "/h" })), "/s");
  assert.equal(secretsDir(env({ XDG_CONFIG_HOME: "/c", HOME: "/h" })), "/c/sausage/secrets");
  assert.equal(secretsDir(env({ HOME: "/h" })), "/h/.config/sausage/secrets");
  assert.throws(() => secretsDir(env({})), /SAUSAGE_SECRETS_DIR/);
  const key = await worldKey("/some/world");
  assert.match(key, /^[0-9a-f]{24}$/);
  assert.equal(await secretsFilePath("/some/world", "/s"), `/s/${key}.json`);
  assert.notEqual(await secretsFilePath("/other/world", "/s"), `/s/${key}.json`);
});

Deno.test("sets from several processes at once all take effect (the folder is locked)", () =>
  inTemp(async (tmp) => {
    const path = `${tmp}/secrets/w.json`;
    const store = new URL("./secret_store.ts", import.meta.url).href;
    // Four processes, each setting 25 secrets of its own as fast as it can.
    const script = (p: number) =>
      `import { setSecret } from "${store}";` +
      `for (let i = 0; i < 25; i++) setSecret("${path}", "/w", "P${p}_" + i, "v" + i);`;
    const runs = [0, 1, 2, 3].map((p) =>
      new Deno.Command(Deno.execPath(), {
        args: ["eval", "--no-check", script(p)],
        stdout: "null",
        stderr: "piped",
      }).output()
    );
    for (const out of await Promise.all(runs)) {
      assert.ok(out.success, new TextDecoder().decode(out.stderr));
    }
    const names = Object.keys(readSecretStore(path, "/w").secrets);
    assert.equal(names.length, 100, "no set was lost to another's write");
    assert.deepEqual([...Deno.readDirSync(`${tmp}/secrets`)].map((e) => e.name), ["w.json"]);
  }));
