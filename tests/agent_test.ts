/**
 * The agent (`examples/world/plugins/agent`, section 14) in a real host,
 * against a scripted model server on 127.0.0.1 that speaks OpenAI's chat
 * completions or Anthropic's messages API. The model plays a whole
 * conversation: it explores the world, writes a plugin with a compile error,
 * reads the compiler's message, fixes it, builds, activates and calls it.
 */

import { strict as assert } from "node:assert";
import { cachedBuild } from "../core/cargo/cached_build.ts";
import { setSecret } from "../core/secrets/secret_store.ts";
import { secretsFilePath } from "../core/secrets/secrets_path.ts";
import type { Entry } from "../core/journal/journal.ts";
import { eventually, TestHost } from "./helpers/host.ts";
import {
  type ScriptedApi,
  ScriptedModel,
  type SeenRequest,
  type Step,
  toolResults,
} from "./helpers/scripted_model.ts";

const ROOT = decodeURIComponent(new URL("..", import.meta.url).pathname).replace(/\/$/, "");
const agent = await cachedBuild(`${ROOT}/examples/world/plugins/agent/source`, "examples", "agent");
const TOKEN_ENV = "SCRIPTED_API_KEY";
Deno.env.set(TOKEN_ENV, "sk-scripted");

const SHOUT_TOML = `[package]
name = "shout"
version = "0.1.0"
edition = "2024"

[dependencies]
sausage-plugin = "0.1"
serde_json = "1"
`;

/** The new plugin's source; `doc` false leaves out the method's doc comment (a compile error). */
function shoutSource(doc: boolean): string {
  return `//! shout: says a text louder.
use sausage_plugin::{Result, rpc, schema};

/// The shout plugin.
struct Shout;

/// The params of \`upper\`.
#[schema]
struct UpperParams {
    /// The text to shout.
    text: String,
}

#[rpc]
impl Shout {
${
    doc
      ? "    /// Return the text in capitals.\n"
      : ""
  }    fn upper(&self, UpperParams { text }: UpperParams) -> Result<String> {
        Ok(text.to_uppercase())
    }
}

fn main() {
    sausage_plugin::run(Shout);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upper_shouts() {
        assert_eq!(Shout.upper(UpperParams { text: "a b".into() }).unwrap(), "A B");
    }
}
`;
}

/** A host on a world with the agent, the notes example's source and `config/agent.json`. */
async function agentHost(config: string): Promise<TestHost> {
  const h = await TestHost.start({
    plugins: { agent },
    files: {
      "config/agent.json": config,
      // A turn builds and tests plugins: minutes on a loaded machine, past the 60 s default.
      "config/limits.json": '{ "call_timeout_ms": 3600000 }',
    },
  });
  for (const f of ["Cargo.toml", "src/main.rs"]) {
    const to = `${h.root}/plugins/notes/source/${f}`;
    await Deno.mkdir(to.slice(0, to.lastIndexOf("/")), { recursive: true });
    await Deno.copyFile(`${ROOT}/examples/notes/${f}`, to);
  }
  return h;
}

/** The texts of the `text` notifications the test's caller got. */
function texts(h: TestHost): string[] {
  return h.notes
    .filter((m) => "method" in m && m.method === "core.notify")
    .map((m) => (m as unknown as { params: { name: string; params: { text: string } } }).params)
    .filter((p) => p.name === "text")
    .map((p) => p.params.text);
}

/** The messages the agent sent in a request, as text (for `includes`). */
function sent(req: SeenRequest): string {
  return JSON.stringify(req.body.messages);
}

/** The conversation of the issue, step by step; `h` is set once the host runs. */
function conversation(api: ScriptedApi, ctx: { h?: TestHost; wasm?: string }): Step[] {
  const src = "/plugins/shout/source";
  return [
    (req) => {
      const system = api === "openai"
        ? (req.body.messages as { content: string }[])[0].content
        : String(req.body.system);
      for (const where of ["/proc/core/PROTOCOL.md", "/plugins/cargo/sdk/", "cargo.build"]) {
        assert.ok(system.includes(where), `the system prompt names ${where}`);
      }
      for (const where of ["core.activate", "import!", "/plugins/agent/source/"]) {
        assert.ok(system.includes(where), `the system prompt names ${where}`);
      }
      const tools = (req.body.tools as Record<string, unknown>[]).map((t) =>
        api === "openai" ? (t.function as { name: string }).name : t.name
      );
      assert.deepEqual(tools, ["call", "read_file", "write_file", "list_dir", "copy_dir"]);
      assert.ok(sent(req).includes("Make me a plugin"));
      return {
        text: ["Let me look ", "at the world.\n"],
        calls: [{ name: "list_dir", args: { path: "/plugins" } }],
      };
    },
    (req) => {
      const [list] = toolResults(req);
      for (const name of ["agent/", "cargo/", "notes/"]) {
        assert.ok(list.text.includes(name), list.text);
      }
      return {
        calls: [
          { name: "read_file", args: { path: "/proc/core/PROTOCOL.md" } },
          { name: "read_file", args: { path: "/plugins/notes/source/src/main.rs" } },
        ],
      };
    },
    (req) => {
      const [protocol, notes] = toolResults(req);
      assert.match(protocol.text, /^# The Sausage protocol/);
      assert.match(notes.text, /sausage_plugin::run\(Notes\)/);
      return {
        text: ["I will write shout.\n"],
        calls: [
          { name: "write_file", args: { path: `${src}/Cargo.toml`, content: SHOUT_TOML } },
          { name: "write_file", args: { path: `${src}/src/main.rs`, content: shoutSource(false) } },
        ],
      };
    },
    (req) => {
      assert.deepEqual(toolResults(req).map((r) => r.text.startsWith("wrote ")), [true, true]);
      return {
        calls: [{ name: "call", args: { method: "cargo.build", params: { plugin: "shout" } } }],
      };
    },
    (req) => {
      const [build] = toolResults(req);
      assert.match(build.text, /^error -32000: shout was not built/);
      assert.match(build.text, /missing doc comment on method `upper`/, "the compiler's message");
      if (api === "anthropic") assert.equal(build.isError, true);
      return {
        text: ["The method needs a doc comment.\n"],
        calls: [{
          name: "write_file",
          args: { path: `${src}/src/main.rs`, content: shoutSource(true) },
        }],
      };
    },
    () => ({
      calls: [{ name: "call", args: { method: "cargo.build", params: { plugin: "shout" } } }],
    }),
    (req) => {
      const [build] = toolResults(req);
      const result = JSON.parse(build.text);
      assert.match(result.wasm, /^\/state\/cargo\/builds\/.*shout\.wasm$/);
      assert.equal(result.tests.passed, 1);
      ctx.wasm = result.wasm;
      return {
        calls: [{
          name: "call",
          args: { method: "core.activate", params: { plugin: "shout", wasm: result.wasm } },
        }],
      };
    },
    (req) => {
      const [activated] = toolResults(req);
      assert.ok(!activated.text.startsWith("error"), activated.text);
      return {
        calls: [{ name: "call", args: { method: "shout.upper", params: { text: "hello world" } } }],
      };
    },
    (req) => {
      const [answer] = toolResults(req);
      assert.equal(JSON.parse(answer.text), "HELLO WORLD");
      return {
        text: [
          "shout is built and active.\n",
          // The first line reaches the person before the model writes the rest.
          () =>
            eventually(
              () => texts(ctx.h!).includes("shout is built and active."),
              "the first line",
              10_000,
            ).then(() => {}),
          "It answered ",
          "HELLO WORLD.",
        ],
      };
    },
  ];
}

async function playConversation(api: ScriptedApi): Promise<void> {
  const ctx: { h?: TestHost; wasm?: string } = {};
  const model = new ScriptedModel(api, conversation(api, ctx));
  const h = await agentHost(model.config({ token_env: TOKEN_ENV }));
  ctx.h = h;
  try {
    const r = await h.call("agent.chat", { text: "Make me a plugin that shouts, and try it." });
    try {
      model.check();
    } catch (e) {
      // Why the turn ended early: the agent's answer and its last lines.
      const log = await h.result<Entry[]>("core.log", { limit: 10000 });
      const agent = log.filter((l) => l.plugin === "agent").map((l) => l.line).slice(-12);
      throw new Error(
        `${(e as Error).message}; the agent answered ${JSON.stringify(r)}\n${agent.join("\n")}`,
      );
    }
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.equal(r.result, "shout is built and active.\nIt answered HELLO WORLD.");

    // The token came from the host's environment, in the API's header.
    const auth = model.requests[0].headers;
    if (api === "openai") assert.equal(auth.get("authorization"), "Bearer sk-scripted");
    else assert.equal(auth.get("x-api-key"), "sk-scripted");
    assert.equal(
      model.requests[0].path,
      api === "openai" ? "/v1/chat/completions" : "/v1/messages",
    );

    // The world: a new plugin, active, that answers.
    await Deno.stat(`${h.root}/plugins/shout/plugin.wasm`);
    assert.equal(await h.result("shout.upper", { text: "again" }), "AGAIN");

    // The caller saw the model's lines and a line per tool as they came.
    const said = texts(h);
    assert.ok(said.includes("Let me look at the world."), said.join("\n"));
    assert.ok(
      said.some((t) => /^· call .*cargo\.build.* → failed: error -32000/.test(t)),
      said.join("\n"),
    );
    assert.ok(said.some((t) => /^· call .*core\.activate.* → ok$/.test(t)), said.join("\n"));
    // cargo's progress lines of the builds, as they came.
    assert.ok(said.some((t) => /^ {2}.*Finished `release` profile/.test(t)), said.join("\n"));

    // The journal: the agent's tool lines, and the calls it made as their parent.
    const log = await h.result<Entry[]>("core.log", { limit: 10000 });
    const agentPid = log.find((e) => e.plugin === "agent")!.pid;
    const lines = log.filter((e) => e.pid === agentPid && e.stream === "stderr").map((e) => e.line);
    assert.match(lines[0], /^message: Make me a plugin that shouts/);
    assert.match(lines.at(-1)!, /^answer after 8 tool rounds: shout is built and active\./);
    const toolLines = lines.filter((l) => l.startsWith("tool "));
    assert.equal(toolLines.length, 10, toolLines.join("\n"));
    assert.match(toolLines[0], /^tool list_dir .* -> ok$/);
    assert.match(
      toolLines[5],
      /^tool call .*cargo\.build.* -> failed: error -32000: shout was not built/,
    );
    assert.match(toolLines[9], /^tool call .*shout\.upper.* -> ok$/);
    const children = log
      .filter((e) => e.stream === "core")
      .map((e) => JSON.parse(e.line))
      .filter((e) => e.event === "start" && e.parent === agentPid)
      .map((e) => e.method);
    assert.deepEqual(children.map((m) => m.replace(/^.*\./, "")), ["build", "build", "upper"]);

    // The history: the whole turn, tool results included.
    const history = (await Deno.readTextFile(`${h.root}/state/agent/history.jsonl`))
      .trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(
      history.map((m) => m.role).join(" "),
      "user assistant tool assistant tool tool assistant tool tool assistant tool " +
        "assistant tool assistant tool assistant tool assistant tool assistant",
    );
    assert.equal(history[0].content, "Make me a plugin that shouts, and try it.");
    assert.equal(history[10].is_error, true, "the failed build is an error result");
    assert.match(history[10].content, /missing doc comment on method `upper`/);
    assert.equal(history.at(-1).content, "shout is built and active.\nIt answered HELLO WORLD.");
  } finally {
    await model.close();
    await h.close();
  }
}

const opts = { sanitizeOps: false, sanitizeResources: false };

Deno.test({
  name:
    "agent over chat completions: explores, writes a plugin, fixes its compile error, builds, activates and calls it",
  ...opts,
  fn: () => playConversation("openai"),
});

Deno.test({
  name: "agent over the messages API: the same conversation, streamed as Anthropic's events",
  ...opts,
  fn: () => playConversation("anthropic"),
});

/** A host with the agent whose config points at `model`. */
async function withModel(
  model: ScriptedModel,
  extra: Record<string, unknown>,
  fn: (h: TestHost) => Promise<void>,
): Promise<void> {
  const h = await agentHost(model.config(extra));
  try {
    await fn(h);
  } finally {
    await model.close();
    await h.close();
  }
}

Deno.test({
  name:
    "agent: token_secret reads the key with secret(), granted by config/secrets.json; not granted or not set ends the turn with what to fix",
  ...opts,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "sausage-secrets-" });
    Deno.env.set("SAUSAGE_SECRETS_DIR", dir); // the host runs in this process
    const model = new ScriptedModel("openai", [() => ({ text: ["hello"] })]);
    try {
      await withModel(model, { token_secret: "SCRIPTED_KEY" }, async (h) => {
        const chat = () => h.call("agent.chat", { text: "hi" });
        const notGranted = await chat();
        assert.match(
          notGranted.error?.message ?? "",
          /the secret SCRIPTED_KEY \("token_secret" in \/config\/agent.json\): agent may not read/,
        );
        await Deno.writeTextFile(
          `${h.root}/config/secrets.json`,
          '{"SCRIPTED_KEY": {"plugins": ["agent"]}}',
        );
        assert.match((await chat()).error?.message ?? "", /SCRIPTED_KEY is not set/);
        const file = await secretsFilePath(Deno.realPathSync(h.root), dir);
        setSecret(file, Deno.realPathSync(h.root), "SCRIPTED_KEY", "sk-from-a-secret");
        const r = await chat();
        assert.equal(r.result, "hello", JSON.stringify(r.error));
        assert.equal(model.requests[0].headers.get("authorization"), "Bearer sk-from-a-secret");
        model.check();
      });
    } finally {
      Deno.env.delete("SAUSAGE_SECRETS_DIR");
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "agent: a second message waits until the first turn has ended, then sees it in the history",
  ...opts,
  async fn() {
    let release = () => {};
    const gate = new Promise<void>((r) => release = r);
    const model = new ScriptedModel("openai", [
      async () => {
        await gate;
        return { text: ["first answer"] };
      },
      (req) => {
        const messages = req.body.messages as { role: string; content: string }[];
        assert.deepEqual(
          messages.slice(1).map((m) => [m.role, m.content]),
          [["user", "one"], ["assistant", "first answer"], ["user", "two"]],
        );
        return { text: ["second answer"] };
      },
    ]);
    await withModel(model, {}, async (h) => {
      const first = h.call("agent.chat", { text: "one" });
      await eventually(() => model.requests.length === 1, "the first turn's request");
      let firstDone = false;
      first.then(() => firstDone = true);
      const second = h.call("agent.chat", { text: "two" });
      const waiting = await eventually(
        () =>
          h.host.locks.snapshot().locks.find((l) =>
            l.path === "/state/agent/history.jsonl" && l.waiters.length === 1
          ),
        "the second turn to wait for the lock",
      );
      assert.match(waiting.owner, /^agent-/);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(model.requests.length, 1, "the second turn asks nothing while the first runs");
      release();
      const [a, b] = await Promise.all([first, second]);
      assert.ok(firstDone);
      assert.equal(a.result, "first answer");
      assert.equal(b.result, "second answer");
      model.check();
    });
  },
});

Deno.test({
  name: "agent: a tool's failure goes back to the model; the rounds of a turn are bounded",
  ...opts,
  async fn() {
    const model = new ScriptedModel("anthropic", [
      () => ({
        calls: [
          { name: "read_file", args: { path: "/state/nothing/here.txt" } },
          { name: "call", args: { method: "nosuch.method", params: {} } },
          { name: "call", args: { method: "agent.chat", params: { text: "loop" } } },
          { name: "no_such_tool", args: {} },
        ],
      }),
      (req) => {
        const results = toolResults(req);
        assert.deepEqual(results.map((r) => r.isError), [true, true, true, true]);
        assert.match(results[0].text, /here\.txt: .*(No such file|not found)/i);
        assert.match(results[1].text, /^error -32001: /);
        assert.match(results[2].text, /agent\.chat cannot be called from a turn/);
        assert.match(results[3].text, /there is no tool "no_such_tool"/);
        return { calls: [{ name: "list_dir", args: { path: "/" } }] };
      },
    ]);
    await withModel(model, { max_tool_rounds: 2, stream: false }, async (h) => {
      const r = await h.call("agent.chat", { text: "keep going" });
      model.check();
      assert.match(
        String(r.result),
        /^I stopped after 2 tool rounds \("max_tool_rounds" in \/config\/agent.json\)/,
      );
      const history = (await Deno.readTextFile(`${h.root}/state/agent/history.jsonl`)).trim()
        .split("\n").map((l) => JSON.parse(l));
      assert.equal(history.at(-2).role, "tool", "every tool call has its result");
      assert.equal(history.at(-1).role, "assistant");
    });
  },
});

/** A server that answers every request with `status` and `body`. */
function fixedServer(status: number, body: string, type = "application/json") {
  return Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response(body, { status, headers: { "content-type": type } }),
  );
}

Deno.test({
  name: "agent: a missing or broken config, a missing token, an unreachable or silent server, " +
    "an HTTP error and a malformed answer each give one line that says what to fix",
  ...opts,
  async fn() {
    const h = await TestHost.start({ plugins: { agent } });
    const unauthorized = fixedServer(401, '{"error": {"message": "invalid x-api-key"}}');
    const garbage = fixedServer(200, '{"hello": "world"}');
    let wake = () => {};
    const silent = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      () => new Promise<Response>((r) => wake = () => r(new Response("{}"))),
    );
    const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const closedPort = (closed.addr as Deno.NetAddr).port;
    closed.close();
    const url = (port: number) => `http://127.0.0.1:${port}/v1`;
    const cases: [string | null, RegExp][] = [
      [null, /^agent: \/config\/agent.json is missing: write one, e.g. \{"api": "openai"/],
      ["{", /^agent: \/config\/agent.json:1:1: EOF while parsing an object: fix the file/],
      [
        '{\n  // JSONC\n  "api": "openai"\n  "model": "m"\n}',
        /^agent: \/config\/agent.json:4:3: expected `,` or `}`: fix the file \(JSON with \/\/ or/,
      ],
      [
        '{"api": "gpt", "base_url": "http://x", "model": "m"}',
        /"api" must be "openai" or "anthropic", not "gpt"/,
      ],
      ['{"api": "openai", "base_url": "http://x", "modle": "m"}', /unknown field "modle"/],
      [
        JSON.stringify({ api: "openai", base_url: url(1), model: "m", token_env: "HOME" }),
        /"token_env" must name an environment variable in capitals ending in _API_KEY/,
      ],
      [
        JSON.stringify({ api: "openai", base_url: url(1), model: "m", token_env: "UNSET_API_KEY" }),
        /the environment variable UNSET_API_KEY \("token_env" in \/config\/agent.json\) is not set/,
      ],
      [
        JSON.stringify({ api: "openai", base_url: url(closedPort), model: "m" }),
        new RegExp(
          `cannot reach the model at ${
            url(closedPort)
          }/chat/completions \\(.+\\): check "base_url"`,
        ),
      ],
      [
        // JSONC, read by the host (the token's name) and by the agent.
        `{\n  // the model\n  "api": "anthropic", /* its messages API */\n` +
        `  "base_url": "${url(unauthorized.addr.port)}",\n  "model": "m",\n` +
        `  "token_env": "${TOKEN_ENV}", // the host passes this variable\n}\n`,
        /answered HTTP 401 \(invalid x-api-key\): check the token in SCRIPTED_API_KEY$/,
      ],
      [
        JSON.stringify({ api: "openai", base_url: url(garbage.addr.port), model: "m" }),
        /is not a chat-completions reply \(no choices\[0\]\.message\): check "api" and "base_url"/,
      ],
      [
        JSON.stringify({
          api: "openai",
          base_url: url(silent.addr.port),
          model: "m",
          timeout_s: 1,
        }),
        /did not answer within 1 s \("timeout_s" in \/config\/agent.json\): check that the server runs, or raise it$/,
      ],
    ];
    try {
      for (const [config, expected] of cases) {
        if (config === null) await Deno.remove(`${h.root}/config/agent.json`).catch(() => {});
        else {
          await Deno.mkdir(`${h.root}/config`, { recursive: true });
          await Deno.writeTextFile(`${h.root}/config/agent.json`, config);
        }
        const r = await h.call("agent.chat", { text: "hi" });
        assert.ok(r.error, `an error for ${config}`);
        assert.match(r.error.message, expected);
        assert.ok(!r.error.message.includes("\n"), `one line: ${r.error.message}`);
        assert.equal(r.error.code, -32000, "an answer, not a crash");
      }
    } finally {
      await unauthorized.shutdown();
      await garbage.shutdown();
      wake();
      await silent.shutdown();
      await h.close();
    }
  },
});

Deno.test({
  name: "agent: its own source builds with cargo.build in the world and passes its tests, " +
    "so the agent can change itself",
  ...opts,
  async fn() {
    const h = await TestHost.start({ plugins: { agent } });
    try {
      const src = `${ROOT}/examples/world/plugins/agent/source`;
      const cp = await new Deno.Command("cp", {
        args: ["-r", src, `${h.root}/plugins/agent/source`],
      }).output();
      assert.equal(cp.code, 0);
      await Deno.remove(`${h.root}/plugins/agent/source/target`, { recursive: true }).catch(
        () => {},
      );
      const built = await h.result<{ wasm: string; tests: { passed: number; failed: number } }>(
        "cargo.build",
        { plugin: "agent" },
      );
      assert.equal(built.tests.failed, 0);
      assert.ok(built.tests.passed >= 8, JSON.stringify(built.tests));
      await h.result("core.activate", { plugin: "agent", wasm: built.wasm });
      const r = await h.call("agent.chat", { text: "hi" });
      assert.match(
        r.error!.message,
        /^agent: \/config\/agent.json is missing/,
        "the new version runs",
      );
    } finally {
      await h.close();
    }
  },
});
