/**
 * The plugin author's loop (issue 14), as a person runs it, through
 * `./sausage` subprocesses and a plain `cargo test`: scaffold a world and a
 * plugin, test it in its folder with no flags, build and activate it, edit it
 * under `sausage dev`, and run a world in which one plugin does not build.
 * One world for the whole loop (each step builds on the one before, and
 * every cargo build takes tens of seconds here).
 */

import { strict as assert } from "node:assert";
import { launcher, sausage } from "./helpers/cli.ts";
import { renameParam, start, waitFor, WELCOME } from "./helpers/author.ts";
import { COMMAND_NAMES } from "../cli/command_names.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

const dec = new TextDecoder();

/** Every subcommand with a module of its own (`help` answers as the command itself). */
const SUBCOMMANDS = COMMAND_NAMES.filter((c) => c !== "help");

Deno.test({ name: "every subcommand answers --help with its usage", ...opts }, async () => {
  for (const cmd of SUBCOMMANDS) {
    const r = await sausage(cmd, "--help");
    assert.equal(r.code, 0, `${cmd} --help: ${r.stderr}`);
    assert.match(r.stdout, new RegExp(`^Usage: sausage ${cmd}\\b`), cmd);
  }
});

Deno.test(
  { name: "completions: a bash script that completes the subcommands", ...opts },
  async () => {
    const r = await sausage("completions", "bash");
    assert.equal(r.code, 0, r.stderr);
    const script = `${await Deno.makeTempDir()}/c.bash`;
    await Deno.writeTextFile(script, r.stdout);
    const out = await new Deno.Command("bash", {
      args: [
        "-c",
        `source ${script}; COMP_WORDS=(sausage bu); COMP_CWORD=1; _sausage; echo "\${COMPREPLY[@]}"`,
      ],
      stdout: "piped",
    }).output();
    assert.equal(dec.decode(out.stdout).trim(), "build");
    const secret = await new Deno.Command("bash", {
      args: [
        "-c",
        `source ${script}; COMP_WORDS=(sausage secret ""); COMP_CWORD=2; _sausage; echo "\${COMPREPLY[@]}"`,
      ],
      stdout: "piped",
    }).output();
    assert.equal(dec.decode(secret.stdout).trim(), "set list rm", "secret's actions");
    assert.equal((await sausage("completions", "tcsh")).code, 2);
  },
);

Deno.test(
  { name: "new --agent: a world with the agent, or the agent added", ...opts },
  async () => {
    const dir = await Deno.makeTempDir();
    // As the README types it: the hints say ./sausage.
    const repo = launcher.slice(0, launcher.lastIndexOf("/"));
    const out = await new Deno.Command("bash", {
      args: ["-c", `./sausage new ${dir}/a --agent`],
      cwd: repo,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = dec.decode(out.stdout);
    assert.equal(out.code, 0, dec.decode(out.stderr));
    assert.match(
      text,
      /made the world \S+: it holds the plugin hello \(plugins\/hello\/source\/\) and the agent/,
    );
    assert.match(text, /^ {2}\.\/sausage build \S+ hello/m);
    assert.match(text, /export OPENAI_API_KEY/);
    assert.ok(Deno.statSync(`${dir}/a/plugins/agent/source/src/main.rs`).isFile);
    assert.match(Deno.readTextFileSync(`${dir}/a/config/agent.json`), /"token_env"/);
    assert.match(
      Deno.readTextFileSync(`${dir}/a/config/limits.json`),
      /"call_timeout_ms": 3600000/,
    );

    // A world without one is told how to add it; then it is added.
    const plain = await sausage("new", `${dir}/b`);
    assert.match(plain.stdout, /^ {2}sausage new \S+ --agent +# an agent that writes plugins/m);
    const added = await sausage("new", `${dir}/b`, "--agent");
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout, /added the agent to \S+/);
    assert.ok(Deno.statSync(`${dir}/b/plugins/agent/source/Cargo.toml`).isFile);
    const again = await sausage("new", `${dir}/b`, "--agent");
    assert.equal(again.code, 1);
    assert.match(again.stderr, /plugins\/agent exists already/);
  },
);

Deno.test({ name: "a folder that is not a world is refused, not made one", ...opts }, async () => {
  const dir = await Deno.makeTempDir();
  for (const args of [["run", dir, "--headless"], ["call", dir, "x.y"], ["log", dir]]) {
    const r = await sausage(...args);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /is not a world .*sausage new/);
  }
  assert.deepEqual([...Deno.readDirSync(dir)], []);
  const plugin = await sausage("new", dir, "notes");
  assert.equal(plugin.code, 1);
  assert.match(plugin.stderr, /is not a world/);
});

Deno.test({
  name: "new, cargo test with no flags, build, dev, and a world with a plugin that does not build",
  ...opts,
}, async (t) => {
  const world = `${await Deno.makeTempDir()}/w`;
  const source = `${world}/plugins/hello/source`;
  const main = `${source}/src/main.rs`;

  await t.step("sausage new makes a world with a plugin", async () => {
    const r = await sausage("new", world);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /made the world/);
    assert.match(await Deno.readTextFile(main), /#\[sausage_plugin::test\]/);
    assert.match(await Deno.readTextFile(`${world}/.cargo/config.toml`), /sausage-plugin = /);
    const again = await sausage("new", world);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already a world/);
  });

  await t.step("cargo test in the plugin's folder, with no flags", async () => {
    const r = await new Deno.Command("cargo", {
      args: ["test"],
      cwd: source,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const out = dec.decode(r.stdout) + dec.decode(r.stderr);
    assert.equal(r.code, 0, out);
    assert.match(out, /test result: ok\. 2 passed/);
  });

  await t.step(
    "the Rust tools in the plugin's folder: clippy, fmt --check, doc, quiet",
    async () => {
      // rust-toolchain.toml points rustup's proxies (first on PATH where rustup is) at the
      // rustc that built the sysroot: rustup's own clippy failed with E0514 here.
      assert.match(await Deno.readTextFile(`${world}/rust-toolchain.toml`), /^path = "\/usr"$/m);
      for (const args of [["clippy", "--", "-D", "warnings"], ["fmt", "--check"], ["doc"]]) {
        const r = await new Deno.Command("cargo", {
          args,
          cwd: source,
          stdout: "piped",
          stderr: "piped",
        }).output();
        const out = dec.decode(r.stdout) + dec.decode(r.stderr);
        assert.equal(r.code, 0, `cargo ${args.join(" ")}: ${out}`);
        assert.doesNotMatch(out, /^(warning|error)/m, `cargo ${args.join(" ")}: ${out}`);
      }
    },
  );

  await t.step("sausage build tests, builds and activates; calls get it", async () => {
    const r = await sausage("build", world, "hello");
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /Compiling hello/); // cargo's lines, streamed
    assert.match(r.stderr, /hello is active: 2 tests passed/);
    assert.equal(r.stdout, ""); // JSON only with --json, terminal or not
    const call = await sausage("call", world, "hello.greet", '{"name": "Ada"}');
    assert.equal(call.code, 0, call.stderr);
    assert.deepEqual(JSON.parse(call.stdout), { text: "Hello, Ada!" });
    // Errors that say what to do: the param in JSON's terms, the closest method.
    const badParams = await sausage("call", world, "hello.greet", '{"name": 5}');
    assert.equal(
      JSON.parse(badParams.stderr).message,
      'invalid params of greet: "name" must be a string, not the number 5',
    );
    const typo = await sausage("call", world, "hello.gret", "{}");
    assert.match(
      JSON.parse(typo.stderr).message,
      /did you mean hello\.greet\? \(its methods: greet/,
    );
    const methods = await sausage("methods", world, "hello");
    assert.match(methods.stdout, /hello\.greet \{name: string\} -> Greeting/);
  });

  await t.step("a build that fails prints the compiler's text, and --json the error", async () => {
    const good = await Deno.readTextFile(main);
    await Deno.writeTextFile(main, good.replace("Ok(Greeting {", "Ok(Greting {"));
    try {
      const r = await sausage("build", world, "hello", "--json");
      assert.equal(r.code, 1);
      assert.match(r.stderr, /error\[E0422\]: cannot find struct.*Greting/);
      assert.match(r.stderr, /hello was not built \(the version before keeps running\)/);
      assert.doesNotMatch(r.stderr, /\\n/); // text, not escaped JSON
      const outcome = JSON.parse(r.stdout);
      assert.equal(outcome.ok, false);
      assert.match(outcome.error.data.output, /Greting/);
    } finally {
      await Deno.writeTextFile(main, good);
    }
  });

  await t.step("sausage dev picks up an edit; a broken edit keeps the last good one", async () => {
    const dev = start("dev", world);
    try {
      await waitFor(dev.stderr, /dev: running .*watching the source of hello/);
      const good = await Deno.readTextFile(main);
      let mark = dev.stderr().length;
      const hi = good.replaceAll("Hello, ", "Hi, "); // the greeting, and its test
      await Deno.writeTextFile(main, hi);
      await waitFor(dev.stderr, /hello is active/, mark);
      const call = await sausage("call", world, "hello.greet", '{"name": "Ada"}');
      assert.deepEqual(JSON.parse(call.stdout), { text: "Hi, Ada!" });

      mark = dev.stderr().length;
      await Deno.writeTextFile(main, hi.replace("fn main() {", "fn main() {{"));
      await waitFor(dev.stderr, /hello was not built/, mark);
      assert.match(dev.stderr().slice(mark), /error: /);
      const still = await sausage("call", world, "hello.greet", '{"name": "Ada"}');
      assert.deepEqual(JSON.parse(still.stdout), { text: "Hi, Ada!" });
      await Deno.writeTextFile(main, hi);
    } finally {
      dev.child.kill("SIGINT");
      await dev.child.status;
    }
  });

  await t.step("a plugin that does not build does not stop the world", async () => {
    const r = await sausage("new", world, "broken");
    assert.equal(r.code, 0, r.stderr);
    const file = `${world}/plugins/broken/source/src/main.rs`;
    await Deno.writeTextFile(file, (await Deno.readTextFile(file)) + "\nfn oops( {}\n");
    const run = start("run", world, "--headless");
    try {
      await waitFor(run.stderr, /running .*\(2 plugins, broken not installed\)/);
      const hi = await sausage("call", world, "hello.greet", '{"name": "Ada"}');
      assert.equal(hi.code, 0, hi.stderr);
      assert.deepEqual(JSON.parse(hi.stdout), { text: "Hi, Ada!" });
      const broken = await sausage("call", world, "broken.greet", '{"name": "Ada"}');
      assert.equal(broken.code, 1);
      const error = JSON.parse(broken.stderr);
      assert.match(
        error.message,
        /broken is not installed, so it cannot be called: broken was not built: it does not compile/,
      );
      assert.match(error.data.output, /error: /); // the compiler's message
      // A line per call on run's stderr (no console: stdin is not a terminal).
      await waitFor(run.stderr, /hello\.greet hello-\S+ \d+ ms exit 0/);
    } finally {
      run.child.kill("SIGINT");
      await run.child.status;
    }
  });

  await t.step("log -f, import, and sausage test given a plugin's binary", async () => {
    const follow = new Deno.Command(launcher, {
      args: ["log", world, "hello", "-n", "1", "-f"],
      stdout: "piped",
      stderr: "null",
    }).spawn();
    let seen = "";
    const reading = (async () => {
      for await (const chunk of follow.stdout) seen += dec.decode(chunk);
    })();
    try {
      await waitFor(() => seen, /./); // the last entry, then the new ones
      await sausage("call", world, "hello.greet", '{"name": "Bo"}');
      // A line per finished call, as the headless run prints it.
      await waitFor(() => seen, /\d\d:\d\d:\d\d\.\d{3} hello\.greet hello-\S+ \d+ ms exit 0/);
    } finally {
      follow.kill("SIGINT");
      await follow.status;
      await reading;
    }

    const imported = await sausage("import", world, "broken", "hello");
    assert.equal(imported.code, 0, imported.stderr);
    const doc = JSON.parse(
      await Deno.readTextFile(`${world}/plugins/broken/source/imports/hello.json`),
    );
    assert.deepEqual(doc.methods.map((m: { name: string }) => m.name), ["greet"]);

    const test = await sausage("test", `${world}/plugins/hello/plugin.wasm`);
    assert.equal(test.code, 1);
    assert.match(test.stderr, /is a plugin's binary, not a test binary/);
  });

  await t.step(
    "the README's second plugin imports the first; a breaking change is refused",
    async () => {
      assert.equal((await sausage("new", world, "welcome")).code, 0);
      assert.equal((await sausage("import", world, "welcome", "hello")).code, 0);
      await Deno.writeTextFile(`${world}/plugins/welcome/source/src/main.rs`, WELCOME);
      const built = await sausage("build", world, "welcome");
      assert.equal(built.code, 0, built.stderr);
      const call = await sausage("call", world, "welcome.welcome", '{"name": "Ada"}');
      assert.deepEqual(JSON.parse(call.stdout), "Hi, Ada! Welcome to this world.");

      // Rename hello's param (and its tests): welcome would break, so it is refused.
      const hello = await Deno.readTextFile(main);
      await Deno.writeTextFile(
        main,
        renameParam(hello),
      );
      const refused = await sausage("build", world, "hello");
      assert.equal(refused.code, 1, refused.stderr);
      assert.match(refused.stderr, /hello was not activated: 1 consumer breaks\./);
      assert.match(refused.stderr, /Update welcome first, or activate both together\./);
      assert.match(refused.stderr, /hello built, but was not activated/);
      const still = await sausage("call", world, "welcome.welcome", '{"name": "Ada"}');
      assert.deepEqual(JSON.parse(still.stdout), "Hi, Ada! Welcome to this world.");
      await Deno.writeTextFile(main, hello);
    },
  );
});

Deno.test({
  name: "a change that breaks a consumer is one command: build <world> hello welcome",
  ...opts,
}, async () => {
  const world = `${await Deno.makeTempDir()}/w`;
  const main = `${world}/plugins/hello/source/src/main.rs`;
  const welcome = `${world}/plugins/welcome/source`;
  assert.equal((await sausage("new", world)).code, 0);
  assert.equal((await sausage("new", world, "welcome")).code, 0);
  await Deno.writeTextFile(`${welcome}/src/main.rs`, WELCOME);
  const first = await sausage("build", world, "hello");
  assert.equal(first.code, 0, first.stderr);
  assert.equal((await sausage("import", world, "welcome", "hello")).code, 0);
  const second = await sausage("build", world, "welcome");
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stderr, /welcome is active: no tests, built and activated/);

  // hello's param `name` becomes `who`, and welcome follows in its import and its code.
  const hello = await Deno.readTextFile(main);
  await Deno.writeTextFile(
    main,
    renameParam(hello),
  );
  const refused = await sausage("build", world, "hello", "--json");
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(refused.stderr, /hello was not activated: 1 consumer breaks\./);
  const path = refused.stderr.match(
    /hello was built to (\S+\/state\/cargo\/builds\/\d+\/hello\.wasm)/,
  );
  assert.ok(path, refused.stderr);
  assert.ok(Deno.statSync(path[1]).isFile, "the wasm named is there");
  assert.ok(
    refused.stderr.includes(`activate them together: sausage build ${world} hello welcome`),
    refused.stderr,
  );
  assert.match(
    refused.stderr,
    /sausage call \S+ core\.activate '\{"plugin":"hello","wasm":"\/state/,
  );
  assert.equal(JSON.parse(refused.stdout).step, "activate");

  const imports = `${welcome}/imports/hello.json`;
  const doc = JSON.parse(await Deno.readTextFile(imports));
  doc.methods.find((m: { name: string }) => m.name === "greet").params[0].name = "who";
  await Deno.writeTextFile(imports, JSON.stringify(doc, null, 2));
  await Deno.writeTextFile(
    `${welcome}/src/main.rs`,
    WELCOME.replace("hello::GreetParams { name }", "hello::GreetParams { who: name }"),
  );
  const together = await sausage("build", world, "hello", "welcome");
  assert.equal(together.code, 0, together.stderr);
  assert.match(
    together.stderr,
    /hello and welcome are active: 2 tests passed, built and activated together/,
  );
  assert.doesNotMatch(together.stderr, /would be refused/);
  const call = await sausage("call", world, "welcome.welcome", '{"name": "Ada"}');
  assert.equal(call.code, 0, call.stderr);
  assert.deepEqual(JSON.parse(call.stdout), "Hello, Ada! Welcome to this world.");
  const direct = await sausage("call", world, "hello.greet", '{"who": "Bo"}');
  assert.deepEqual(JSON.parse(direct.stdout), { text: "Hello, Bo!" });
});
