/**
 * `cargo.build` (section 11) end to end: a native method of a real host,
 * run as a process, that tests a plugin's source under WASI with
 * `sausage test`, builds the release component against the world's SDK
 * copy, and reports progress to its caller.
 */

import { strict as assert } from "node:assert";
import { eventually, TestHost } from "./helpers/host.ts";
import { copySource } from "./helpers/world.ts";
import type { Entry } from "../core/journal/journal.ts";
import { detectToolchain } from "../core/cargo/toolchain.ts";

const NOTES = decodeURIComponent(new URL("../examples/notes", import.meta.url).pathname);
const RAWTESTS = decodeURIComponent(new URL("./plugins/rawtests", import.meta.url).pathname);
const CONSUMER = decodeURIComponent(new URL("../examples/consumer", import.meta.url).pathname);
const PID = /^cargo-[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const COMPONENT_MAGIC = [0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00];
const opts = { sanitizeOps: false, sanitizeResources: false };

/** libtest needs these on the offline toolchain; crates without the SDK bring their own. */
const PTHREAD_STUBS = `
#[cfg(all(target_os = "wasi", target_env = "p1"))]
mod pthread_stubs {
    #[no_mangle]
    pub extern "C" fn pthread_join(_t: usize, _r: *mut *mut u8) -> i32 { 52 }
    #[no_mangle]
    pub extern "C" fn pthread_detach(_t: usize) -> i32 { 52 }
}
`;

/** Writes a crate's files under the plugin's `source/`. */
async function writeSource(
  h: TestHost,
  plugin: string,
  files: Record<string, string>,
): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    const full = `${h.root}/plugins/${plugin}/source/${path}`;
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(full, text);
  }
}

/** A package name no other run has used: its builds and build scripts are its own. */
function uniqueName(prefix: string): string {
  return `${prefix}_${crypto.randomUUID().slice(0, 8)}`;
}

function hostTest(
  name: string,
  fn: (h: TestHost, t: Deno.TestContext) => Promise<void>,
  ignore = false,
) {
  Deno.test({
    name,
    ignore,
    ...opts,
    async fn(t) {
      const h = await TestHost.start({});
      try {
        await fn(h, t);
      } finally {
        await h.close();
      }
    },
  });
}

function progressLines(h: TestHost, call: unknown): string[] {
  return h.notes
    .map((n) =>
      (n as unknown as { params: { call: unknown; name: string; params: { line: string } } }).params
    )
    .filter((p) => p.call === call && p.name === "progress")
    .map((p) => p.params.line);
}

// Two steps in one world: the SDK copy of a world is compiled once per world.
hostTest("cargo.build against the world's SDK copy", async (h, t) => {
  await t.step("it tests and builds a plugin as a process, with progress", async () => {
    // The host copies the SDK in the background after it starts (cargo.build waits for it).
    await eventually(
      () => {
        try {
          return Deno.statSync(`${h.root}/plugins/cargo/sdk/sausage-plugin/Cargo.toml`).isFile;
        } catch {
          return false;
        }
      },
      "the host copies the SDK",
      60_000,
    );
    await copySource(NOTES, `${h.root}/plugins/notes/source`);
    const call = h.call("cargo.build", { plugin: "notes" });
    // While it runs it is a process like any other: a pid, /proc/<pid>/info.json.
    const pid = await eventually(
      () => h.host.table.all().find((p) => p.plugin === "cargo")?.pid,
      "the cargo process",
    );
    assert.match(pid, PID);
    const info = JSON.parse(
      new TextDecoder().decode(await h.host.fs.read(`/proc/${pid}/info.json`)),
    );
    assert.equal(info.method, "build");
    assert.deepEqual(info.params, { plugin: "notes" });
    assert.equal(info.parent, "console");

    const r = await call;
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    const result = r.result as {
      wasm: string;
      tests: { passed: number; failed: number; output: string };
      warnings: string[];
    };
    assert.equal(result.wasm, "/state/cargo/builds/1/notes.wasm");
    assert.deepEqual([result.tests.passed, result.tests.failed], [2, 0]);
    assert.match(result.tests.output, /test tests::add_appends_and_counts \.\.\. ok/);
    assert.deepEqual(result.warnings, []);
    const bytes = await Deno.readFile(`${h.root}${result.wasm}`);
    assert.deepEqual([...bytes.subarray(0, 8)], COMPONENT_MAGIC);

    const progress = progressLines(h, r.id);
    assert.ok(progress.some((l) => /Running unittests src\/main\.rs/.test(l)), progress.join("\n"));
    assert.ok(progress.some((l) => /Finished `release` profile/.test(l)), progress.join("\n"));

    const log = await h.result<Entry[]>("core.log", { pid, limit: 1000 });
    assert.equal(log[0].stream, "core");
    assert.deepEqual(JSON.parse(log[0].line), {
      event: "start",
      method: "build",
      params: { plugin: "notes" },
      parent: "console",
      detached: false,
    });
    assert.ok(log.some((e) => e.stream === "stderr" && /Finished `release` profile/.test(e.line)));
    assert.deepEqual(JSON.parse(log.at(-1)!.line), { event: "exit", status: 0 });
    assert.equal(h.host.table.get(pid), undefined, "the process ended");

    const second = await h.result<{ wasm: string }>("cargo.build", { plugin: "notes" });
    assert.equal(second.wasm, "/state/cargo/builds/2/notes.wasm");
  });

  await t.step("unused imported methods are warnings that say what to remove", async () => {
    await copySource(CONSUMER, `${h.root}/plugins/consumer/source`);
    const main = `${h.root}/plugins/consumer/source/src/main.rs`;
    const text = await Deno.readTextFile(main);
    await Deno.writeTextFile(
      main,
      text.replace(/ {4}\/\/\/ All notes, through the typed client\.\n[\s\S]*?\n {4}\}\n/, ""),
    );
    const r = await h.call("cargo.build", { plugin: "consumer" });
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    const { warnings } = r.result as { warnings: string[] };
    // This world has no notes or www yet: the build also says its activation would be refused.
    assert.deepEqual(warnings.filter((w) => !w.startsWith("activating this build")), [
      "notes.list is imported but not used: remove it from imports/notes.json",
    ]);
    assert.match(
      warnings.join("\n"),
      /activating this build would be refused: .*There is no plugin notes/s,
    );
  });
});

hostTest(
  "a failing test fails cargo.build with one line, the test output in data, and no build",
  async (h) => {
    const source = `${h.root}/plugins/rawtests/source`;
    await copySource(RAWTESTS, source);
    // Crates of one package name share their test binaries' file names in
    // the shared target folder: this copy gets a package name of its own
    // (its library keeps the name rawtests), so that the runner's tests of
    // tests/plugins/rawtests, which may run meanwhile, keep their binaries
    // (the limit in core/cargo/cargo_build_method.ts).
    const toml = await Deno.readTextFile(`${source}/Cargo.toml`);
    await Deno.writeTextFile(
      `${source}/Cargo.toml`,
      toml.replace('name = "rawtests"', 'name = "rawtests-in-a-world"') +
        '\n[lib]\nname = "rawtests"\npath = "src/lib.rs"\n',
    );
    const r = await h.call("cargo.build", { plugin: "rawtests" });
    assert.equal(r.error?.code, -32000);
    assert.equal(r.error!.message, "rawtests was not built: 3 of 11 tests failed");
    const data = r.error!.data as {
      step: string;
      tests: { passed: number; failed: number; output: string };
    };
    assert.equal(data.step, "test");
    assert.deepEqual([data.tests.passed, data.tests.failed], [8, 3]);
    assert.match(data.tests.output, /---- tests::panics stdout ----\nabout to panic\n/);
    // No build left (the release build that ran beside the tests is gone with its folder).
    const builds = await Array.fromAsync(Deno.readDir(`${h.root}/state/cargo/builds`))
      .catch(() => []);
    assert.deepEqual(builds.map((e) => e.name), []);
  },
);

hostTest("code that does not compile fails cargo.build with the compiler's output", async (h) => {
  const name = "sausage_cargo_build_broken";
  await writeSource(h, "broken", {
    "Cargo.toml": `[package]\nname = "${name}"\nversion = "0.1.0"\nedition = "2021"\n`,
    "src/main.rs": "fn main() {\n    let x = ;\n}\n",
  });
  const r = await h.call("cargo.build", { plugin: "broken" });
  assert.equal(r.error?.code, -32000);
  assert.equal(r.error!.message, "broken was not built: it does not compile");
  const data = r.error!.data as { step: string; output: string };
  assert.equal(data.step, "test");
  assert.match(data.output, /error: expected expression, found `;`/);
  assert.match(data.output, /src\/main\.rs:2:13/);
  assert.equal(
    (data as { warnings?: string[] }).warnings,
    undefined,
    "no hint that does not apply",
  );

  // A crate without the SDK (and without pthread stubs of its own) tests and builds too.
  await writeSource(h, "nostubs", {
    "Cargo.toml":
      `[package]\nname = "sausage_cargo_build_nostubs"\nversion = "0.1.0"\nedition = "2021"\n`,
    "src/main.rs": "fn main() {}\n\n#[test]\nfn t() {}\n",
  });
  const linked = await h.call("cargo.build", { plugin: "nostubs" });
  assert.equal(linked.error, undefined, JSON.stringify(linked.error));
});

hostTest("cargo.build checks its params, and cargo has no other methods", async (h) => {
  const none = await h.call("cargo.build", { plugin: "nothere" });
  assert.equal(none.error?.code, -32602);
  assert.match(
    none.error!.message,
    /nothere has no source: cargo\.build builds \/plugins\/nothere\/source\//,
  );
  assert.equal((await h.call("cargo.build", {})).error?.code, -32602);
  assert.equal((await h.call("cargo.build", { plugin: "Bad Name" })).error?.code, -32602);
  const other = await h.call("cargo.clean", {});
  assert.equal(other.error?.code, -32601);
  assert.match(other.error!.message, /cargo has no method clean \(it has cargo\.build\)/);
});

/** A crate whose build script runs until it is killed, named so that `pgrep -f` finds it. */
async function slowCrate(h: TestHost, plugin: string): Promise<string> {
  const name = uniqueName("sausage_slow");
  await writeSource(h, plugin, {
    "Cargo.toml": `[package]\nname = "${name}"\nversion = "0.1.0"\nedition = "2021"\n`,
    "build.rs": "fn main() {\n    std::thread::sleep(std::time::Duration::from_secs(120));\n}\n",
    "src/main.rs": `fn main() {}\n${PTHREAD_STUBS}`,
  });
  return name;
}

async function running(pattern: string): Promise<boolean> {
  const r = await new Deno.Command("pgrep", { args: ["-f", pattern], stdout: "null" }).output();
  return r.success;
}

hostTest(
  "core.kill and core.stop end a running cargo.build and everything cargo started",
  async (h) => {
    for (const how of ["kill", "stop"] as const) {
      const name = await slowCrate(h, `slow-${how}`);
      const call = h.call("cargo.build", { plugin: `slow-${how}` });
      const pid = await eventually(
        () =>
          h.host.table.all().find((p) => p.plugin === "cargo" && p.params.plugin === `slow-${how}`)
            ?.pid,
        "the cargo process",
      );
      await eventually(() => running(`${name}.*build-script-build`), "the build script", 60_000);
      assert.deepEqual(await h.result(`core.${how}`, { pid }), {});
      const r = await call;
      assert.equal(r.error?.code, -32002, JSON.stringify(r));
      assert.match(r.error!.message, how === "kill" ? /was killed/ : /ended without an answer/);
      await eventually(
        async () => !(await running(name)),
        `the end of cargo and its build script (${how})`,
        10_000,
      );
      assert.equal(h.host.table.get(pid), undefined);
    }
  },
);

const cc = (await detectToolchain().catch(() => null))?.cc ?? null;
const ccCrate =
  [...Deno.readDirSync("/usr/share/cargo/registry").filter((e) => e.name.startsWith("cc-"))]
    .length > 0;

hostTest(
  "build scripts compile C with the WASI clang (needs clang and Debian's cc crate)",
  async (h) => {
    await writeSource(h, "twice", {
      "Cargo.toml":
        `[package]\nname = "sausage_cargo_build_cc"\nversion = "0.1.0"\nedition = "2021"\n\n` +
        `[build-dependencies]\ncc = "1"\n`,
      "build.rs": `fn main() {\n    cc::Build::new().file("c/twice.c").compile("twice");\n}\n`,
      "c/twice.c": '#include <string.h>\nint twice(int x) { return (int) strlen("") + 2 * x; }\n',
      "src/main.rs":
        `extern "C" {\n    fn twice(x: i32) -> i32;\n}\n\nfn main() {\n    println!("{}", unsafe { twice(21) });\n}\n` +
        `\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn twice_doubles() {\n        assert_eq!(unsafe { super::twice(4) }, 8);\n    }\n}\n` +
        PTHREAD_STUBS,
    });
    const r = await h.call("cargo.build", { plugin: "twice" });
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    const result = r.result as { tests: { passed: number } };
    assert.equal(result.tests.passed, 1);
  },
  !cc || !ccCrate,
);
