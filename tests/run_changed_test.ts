/**
 * `sausage run` treats a changed source as `sausage build` does (issue 26):
 * a plugin is rebuilt only when its source's content changed (a touch or a
 * rewrite of the same text rebuilds nothing), its tests run, and a version
 * that would break a consumer is kept out, with the reason on the terminal
 * and in the journal, while the version before keeps answering.
 */

import { strict as assert } from "node:assert";
import { sausage } from "./helpers/cli.ts";
import { renameParam, start, waitFor, WELCOME } from "./helpers/author.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

/** Runs the world headless until it is up, gives its stderr to `body`, then stops it. */
async function running(world: string, body: (stderr: () => string) => Promise<void>) {
  const run = start("run", world, "--headless");
  try {
    await waitFor(run.stderr, /sausage: running /);
    await body(run.stderr);
  } finally {
    run.child.kill("SIGINT");
    await run.child.status;
  }
}

Deno.test({
  name: "run rebuilds a changed source as build does: tests, consumer check, refusal journaled",
  ...opts,
}, async () => {
  const world = `${await Deno.makeTempDir()}/w`;
  const main = `${world}/plugins/hello/source/src/main.rs`;
  assert.equal((await sausage("new", world)).code, 0);
  assert.equal((await sausage("new", world, "welcome")).code, 0);
  await Deno.writeTextFile(`${world}/plugins/welcome/source/src/main.rs`, WELCOME);
  const hello = await sausage("build", world, "hello");
  assert.equal(hello.code, 0, hello.stderr);
  assert.equal((await sausage("import", world, "welcome", "hello")).code, 0);
  const welcome = await sausage("build", world, "welcome");
  assert.equal(welcome.code, 0, welcome.stderr);

  // An editor saving unchanged text, and a touch: the content is the same, nothing is built.
  const text = await Deno.readTextFile(main);
  await new Promise((r) => setTimeout(r, 20));
  await Deno.writeTextFile(main, text);
  await Deno.utime(main, new Date(), new Date());
  await running(world, (stderr) => {
    assert.doesNotMatch(stderr(), /changed|Compiling|building/, stderr());
    return Promise.resolve();
  });

  // A breaking change: tested, built, refused; the reason on stderr and in the journal.
  await Deno.writeTextFile(main, renameParam(text));
  await running(world, async (stderr) => {
    const out = stderr();
    assert.match(out, /hello's source changed since its plugin\.wasm was built/);
    assert.match(out, /Running unittests/); // its tests ran, as in sausage build
    assert.match(out, /hello was not activated: 1 consumer breaks\./);
    assert.match(out, /activate them together: sausage build \S+ hello welcome/);
    assert.match(out, /hello built, but was not activated \(the version before keeps running\)/);
    const log = await sausage("call", world, "core.log", '{"grep": "activation-refused"}');
    assert.equal(log.code, 0, log.stderr);
    const [entry] = JSON.parse(log.stdout);
    assert.ok(entry, "the refusal is in the journal");
    const event = JSON.parse(entry.line);
    assert.deepEqual(event.plugins, ["hello"]);
    assert.match(event.message, /1 consumer breaks/);
    const call = await sausage("call", world, "welcome.welcome", '{"name": "Ada"}');
    assert.deepEqual(JSON.parse(call.stdout), "Hello, Ada! Welcome to this world.");
  });

  // Back to the text it was built from: current again, nothing to build.
  await Deno.writeTextFile(main, text);
  await running(world, (stderr) => {
    assert.doesNotMatch(stderr(), /changed|Compiling/, stderr());
    return Promise.resolve();
  });
});

Deno.test({
  name:
    "dev: a provider's breaking change, then its consumer's, saved apart, are activated together; import --built",
  ...opts,
}, async () => {
  const world = `${await Deno.makeTempDir()}/w`;
  const main = `${world}/plugins/hello/source/src/main.rs`;
  const welcomeMain = `${world}/plugins/welcome/source/src/main.rs`;
  assert.equal((await sausage("new", world)).code, 0);
  assert.equal((await sausage("new", world, "welcome")).code, 0);
  await Deno.writeTextFile(welcomeMain, WELCOME);
  assert.equal((await sausage("build", world, "hello")).code, 0);
  assert.equal((await sausage("import", world, "welcome", "hello")).code, 0);
  assert.equal((await sausage("build", world, "welcome")).code, 0);

  const dev = start("dev", world);
  try {
    await waitFor(dev.stderr, /dev: running .*watching the source of hello, welcome/);
    // A save that changes nothing builds nothing.
    const text = await Deno.readTextFile(main);
    let mark = dev.stderr().length;
    await Deno.writeTextFile(main, text);
    await waitFor(dev.stderr, /hello: same content as the running version/, mark);

    // hello alone: refused, welcome would break.
    mark = dev.stderr().length;
    await Deno.writeTextFile(main, renameParam(text));
    await waitFor(dev.stderr, /hello built, but was not activated/, mark);
    assert.match(dev.stderr().slice(mark), /1 consumer breaks/);

    // welcome follows hello's build (not yet active), then its code: both activated together.
    mark = dev.stderr().length;
    const imported = await sausage("import", world, "welcome", "hello", "--built");
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stderr, /the document of hello's build \/state\/cargo\/builds\/\d+\//);
    await Deno.writeTextFile(
      welcomeMain,
      WELCOME.replace("hello::GreetParams { name }", "hello::GreetParams { who: name }"),
    );
    await waitFor(dev.stderr, /welcome and hello are active: .*built and activated together/, mark);
    assert.match(dev.stderr().slice(mark), /the refusal names hello, whose source changed too/);
    const call = await sausage("call", world, "welcome.welcome", '{"name": "Ada"}');
    assert.deepEqual(JSON.parse(call.stdout), "Hello, Ada! Welcome to this world.");
    const direct = await sausage("call", world, "hello.greet", '{"who": "Bo"}');
    assert.deepEqual(JSON.parse(direct.stdout), { text: "Hello, Bo!" });
  } finally {
    dev.child.kill("SIGINT");
    await dev.child.status;
  }
});

Deno.test({
  name:
    "run installs nothing untested: a plugin cargo.build refused for a failing test stays out; its calls answer with the tests' output",
  ...opts,
}, async () => {
  const world = `${await Deno.makeTempDir()}/w`;
  assert.equal((await sausage("new", world)).code, 0);
  assert.equal((await sausage("new", world, "badtest")).code, 0);
  const main = `${world}/plugins/badtest/source/src/main.rs`;
  await Deno.writeTextFile(
    main,
    (await Deno.readTextFile(main)) +
      "\n#[cfg(test)]\nmod broken {\n    #[test]\n    fn fails() {\n        assert_eq!(1 + 1, 3);\n    }\n}\n",
  );
  const refused = await sausage("build", world, "badtest");
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(refused.stderr, /badtest was not built: 1 of 3 tests failed/);

  await running(world, async (stderr) => {
    const out = stderr();
    // hello went through its tests too; badtest was refused, in one line, and not installed.
    assert.match(out, /hello, badtest have no plugin\.wasm|badtest, hello have no plugin\.wasm/);
    assert.match(out, /hello is active: 2 tests passed/);
    assert.match(
      out,
      /^sausage: badtest was not built: 1 of 3 tests failed; it has no version before, so its calls answer with this/m,
    );
    assert.match(out, /running .*\(2 plugins, badtest not installed\)/);
    assert.doesNotMatch(out, /built badtest/);
    await assert.rejects(Deno.stat(`${world}/plugins/badtest/plugin.wasm`));
    const call = await sausage("call", world, "badtest.greet", '{"name": "Ada"}', "--json");
    assert.equal(call.code, 1);
    const error = JSON.parse(call.stderr);
    assert.match(
      error.message,
      /badtest is not installed, so it cannot be called: badtest was not built: 1 of 3 tests failed/,
    );
    assert.match(error.message, /sausage build \S+ badtest/);
    assert.match(error.data.output, /assertion `left == right` failed/);
    const hi = await sausage("call", world, "hello.greet", '{"name": "Ada"}');
    assert.equal(hi.code, 0, hi.stderr);
  });
});
