/**
 * The test runner (`sausage test`, section 11) end to end: the test
 * binaries of `tests/plugins/rawtests` (plain `#[test]`s, no SDK), built by
 * cargo for WASI and run with each test in its own instance.
 */

import { openTestHost } from "../core/control/world_server.ts";
import { strict as assert } from "node:assert";
import { buildTests, cargoTest, cargoTestCommand } from "../core/cargo/test_run.ts";
import { parseTestArgs, runTests, testOutput } from "../core/test_runner/mod.ts";

const RAWTESTS = decodeURIComponent(new URL("./plugins/rawtests", import.meta.url).pathname);
const LAUNCHER = decodeURIComponent(new URL("../sausage", import.meta.url).pathname);
const opts = { sanitizeOps: false, sanitizeResources: false };

let built: Promise<Record<string, string>> | undefined;

/** The test binaries of rawtests by target name (`rawtests`, `integration`), built once. */
function binaries(): Promise<Record<string, string>> {
  built ??= buildTests(RAWTESTS).then((b) =>
    Object.fromEntries(b.executables.map((e) => [e.name, e.path]))
  );
  return built;
}

/** The variables cargo sets for a test binary of rawtests. */
const CARGO_ENV = { CARGO_MANIFEST_DIR: RAWTESTS, CARGO_PKG_NAME: "rawtests", RUST_BACKTRACE: "0" };

/** Runs the unit-test binary of rawtests with libtest's `args`; the exit code and what it printed. */
async function run(args: string[], target = "rawtests"): Promise<{ code: number; out: string }> {
  let out = "";
  const code = await runTests({
    binary: (await binaries())[target],
    args,
    packageDir: RAWTESTS,
    env: CARGO_ENV,
    write: (t) => out += t,
    writeErr: (t) => out += t,
    openHost: openTestHost,
  });
  return { code, out };
}

/** The `test <name> ... <verdict>` lines, sorted (tests finish in any order). */
function verdicts(out: string): string[] {
  return out.split("\n").filter((l) => /^test .* \.\.\. /.test(l)).sort();
}

Deno.test({
  name:
    "each test runs in its own instance: a panic fails only its test, and the report is libtest's",
  ...opts,
  async fn() {
    const { code, out } = await run([]);
    assert.equal(code, 101, out);
    assert.match(out, /^\nrunning 10 tests\n/);
    assert.deepEqual(verdicts(out), [
      "test tests::fails_with_assert ... FAILED",
      "test tests::ignored ... ignored",
      "test tests::interferes_a ... ok",
      "test tests::interferes_b ... ok",
      "test tests::panics ... FAILED",
      "test tests::passes ... ok",
      "test tests::reads_a_file_of_the_package ... ok",
      "test tests::returns_err ... FAILED",
      "test tests::sees_an_empty_world_and_writes_state ... ok",
      "test tests::talks_to_the_core ... ok",
    ]);
    assert.match(
      out,
      /\ntest result: FAILED\. 6 passed; 3 failed; 1 ignored; 0 measured; 0 filtered out; finished in \d+\.\d\ds\n\n$/,
    );
    // The failures section has each failed test's own output, without libtest's framing.
    const section = (name: string) =>
      out.split(`---- ${name} stdout ----\n`)[1].split("\n---- ")[0].split("\n\nfailures:")[0];
    const assertFailure = section("tests::fails_with_assert");
    assert.match(assertFailure, /^before the assert\n/);
    assert.ok(
      assertFailure.includes("assertion `left == right` failed: two and two\n  left: 4\n right: 5"),
    );
    assert.match(
      assertFailure,
      /note: the test's instance trapped \(.*unreachable\): a panic ends only its own test/,
    );
    assert.doesNotMatch(assertFailure, /running 1 test|test tests::/);
    assert.match(
      section("tests::panics"),
      /^about to panic\n\nthread 'main' .*panicked at src\/lib\.rs:\d+:\d+:\nthis test panics\n/,
    );
    assert.equal(section("tests::returns_err"), 'Error: "an error value"\n');
    assert.ok(
      out.includes(
        "\nfailures:\n    tests::fails_with_assert\n    tests::panics\n    tests::returns_err\n",
      ),
      out,
    );
  },
});

Deno.test({
  name: "filters, --exact and --skip select tests as libtest does; --list lists them",
  ...opts,
  async fn() {
    const exact = await run(["tests::passes", "--exact", "--show-output"]);
    assert.equal(exact.code, 0, exact.out);
    assert.deepEqual(verdicts(exact.out), ["test tests::passes ... ok"]);
    assert.match(
      exact.out,
      /\nsuccesses:\n\n---- tests::passes stdout ----\noutput of a passing test\n/,
    );
    assert.match(
      exact.out,
      /test result: ok\. 1 passed; 0 failed; 0 ignored; 0 measured; 9 filtered out;/,
    );

    const some = await run(["interferes", "reads_a_file", "--skip", "interferes_b"]);
    assert.equal(some.code, 0, some.out);
    assert.deepEqual(verdicts(some.out), [
      "test tests::interferes_a ... ok",
      "test tests::reads_a_file_of_the_package ... ok",
    ]);

    const list = await run(["--list", "interferes"]);
    assert.equal(list.code, 0);
    assert.equal(
      list.out,
      "tests::interferes_a: test\ntests::interferes_b: test\n\n2 tests, 0 benchmarks\n",
    );
    const terse = await run(["--list", "--format", "terse", "--ignored"]);
    assert.equal(terse.out, "tests::ignored: test\n");
  },
});

Deno.test({
  name: "--ignored runs only the ignored tests, --include-ignored runs them too",
  ...opts,
  async fn() {
    const only = await run(["--ignored", "--show-output"]);
    assert.equal(only.code, 0, only.out);
    assert.deepEqual(verdicts(only.out), ["test tests::ignored ... ok"]);
    assert.match(only.out, /---- tests::ignored stdout ----\nthe ignored test ran\n/);
    assert.match(only.out, /1 passed; 0 failed; 0 ignored; 0 measured; 9 filtered out/);
    const include = await run(["--include-ignored", "-q", "passes", "ignored"]);
    assert.equal(include.code, 0, include.out);
    assert.match(
      include.out,
      /\nrunning 2 tests\n\.\.\n\ntest result: ok\. 2 passed; 0 failed; 0 ignored; 0 measured; 8 filtered out/,
    );
  },
});

Deno.test({
  name: "a second test binary (tests/*.rs) runs the same way",
  ...opts,
  async fn() {
    const { code, out } = await run([], "integration");
    assert.equal(code, 0, out);
    assert.deepEqual(verdicts(out), ["test adds_from_outside ... ok"]);
  },
});

Deno.test("options the runner cannot honour are refused with one line", () => {
  assert.throws(
    () => parseTestArgs(["--format", "json"]),
    /supports --format pretty and terse, not json/,
  );
  assert.throws(() => parseTestArgs(["--bench"]), /does not support --bench/);
  assert.deepEqual(
    parseTestArgs(["a", "--exact", "--skip=b", "--test-threads", "3", "--color", "never"]),
    {
      filters: ["a"],
      skip: ["b"],
      exact: true,
      list: false,
      ignored: "skip",
      format: "pretty",
      nocapture: false,
      showOutput: false,
      threads: 3,
    },
  );
});

Deno.test("testOutput takes out libtest's framing and keeps the test's lines in order", () => {
  const out = (line: string) => ({ stream: "stdout" as const, line });
  const err = (line: string) => ({ stream: "stderr" as const, line });
  // A passing test whose last line had no newline: the verdict is glued to it.
  assert.deepEqual(
    testOutput("t::a", [
      out(""),
      out("running 1 test"),
      out("test t::a ... first"),
      err("on stderr"),
      out("lastok"),
      out(""),
      out(
        "test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
      ),
      out(""),
    ]),
    ["first", "on stderr", "last"],
  );
  // A failed test (an Err): the failures trailer goes, the Error line stays.
  assert.deepEqual(
    testOutput("t::b", [
      out(""),
      out("running 1 test"),
      out("test t::b ... FAILED"),
      out(""),
      out("failures:"),
      out(""),
      out("failures:"),
      out("    t::b"),
      out(""),
      err('Error: "x"'),
      out(
        "test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
      ),
    ]),
    ['Error: "x"'],
  );
  // A trap: no verdict and no summary.
  assert.deepEqual(
    testOutput("t::c", [
      out(""),
      out("running 1 test"),
      out("test t::c ... "),
      err("thread 'main' panicked"),
    ]),
    ["thread 'main' panicked"],
  );
});

Deno.test({
  name: "cargo test with sausage test as the runner: every binary, doc tests included",
  ...opts,
  async fn() {
    // The contract: cargo's runner variables name `sausage test`; the
    // offline toolchain takes std and libtest from its sysroot (built once).
    const cmd = await cargoTestCommand(RAWTESTS);
    assert.equal(cmd.env.CARGO_TARGET_WASM32_WASIP1_RUNNER, `${LAUNCHER} test`);
    assert.equal(cmd.env.CARGO_TARGET_WASM32_WASIP2_RUNNER, `${LAUNCHER} test`);
    assert.deepEqual(cmd.args.slice(0, 3), ["test", "--target", cmd.toolchain.target]);
    if (cmd.toolchain.kind === "offline-wasip1") {
      assert.ok(
        cmd.args.some((a) => a.startsWith('target.wasm32-wasip1.rustflags=["--sysroot"')),
        cmd.args.join(" "),
      );
      assert.ok(!cmd.args.some((a) => a.startsWith("-Zbuild-std")), cmd.args.join(" "));
      assert.equal(cmd.env.RUSTDOC, "/usr/bin/rustdoc");
    }

    const progress: string[] = [];
    const passing = await cargoTest(RAWTESTS, {
      testArgs: ["interferes", "add"],
      onProgress: (l) => progress.push(l),
    });
    assert.ok(passing.success, passing.output);
    // interferes_a and _b (unit tests), adds_from_outside (tests/integration.rs), the doc test of add.
    assert.equal(passing.passed, 4, passing.output);
    assert.equal(passing.failed, 0);
    assert.match(passing.output, /test src\/lib\.rs - add \(line \d+\) \.\.\. ok/);
    assert.ok(progress.some((l) => /Running unittests src\/lib\.rs/.test(l)), progress.join("\n"));

    const all = await cargoTest(RAWTESTS);
    assert.equal(all.success, false);
    assert.deepEqual([all.passed, all.failed, all.ignored], [8, 3, 1], all.output);
    assert.match(all.output, /---- tests::panics stdout ----/);
  },
});

Deno.test({
  name: "sausage test is a command line: cargo's runner, exit code 101 when a test failed",
  ...opts,
  async fn() {
    const binary = (await binaries()).rawtests;
    const cmd = (args: string[]) =>
      new Deno.Command(LAUNCHER, {
        args: ["test", binary, ...args],
        cwd: RAWTESTS,
        env: CARGO_ENV,
        stdout: "piped",
        stderr: "piped",
      }).output();
    const failed = await cmd(["tests::panics", "tests::passes"]);
    const text = new TextDecoder().decode(failed.stdout);
    assert.equal(failed.code, 101, text + new TextDecoder().decode(failed.stderr));
    assert.match(text, /test result: FAILED\. 1 passed; 1 failed;/);
    const bad = await cmd(["--format", "json"]);
    assert.equal(bad.code, 2);
    assert.match(
      new TextDecoder().decode(bad.stderr),
      /supports --format pretty and terse, not json/,
    );
  },
});
