/**
 * The agent (`examples/world/plugins/agent`) writes a TypeScript plugin, in a
 * real host against a scripted model server on 127.0.0.1 (as
 * `tests/agent_test.ts` plays the Rust conversation): it reads the SDK's
 * declarations at `/proc/core/sausage.d.ts`, writes `plugin.ts` with a type
 * error and a test, reads the compiler's message from `cargo.build`, fixes
 * it, builds (its test runs first), activates and calls it.
 */

import { strict as assert } from "node:assert";
import { cachedBuild } from "../core/cargo/cached_build.ts";
import type { Entry } from "../core/journal/journal.ts";
import { TestHost } from "./helpers/host.ts";
import {
  ScriptedModel,
  type SeenRequest,
  type Step,
  toolResults,
} from "./helpers/scripted_model.ts";

const ROOT = decodeURIComponent(new URL("..", import.meta.url).pathname).replace(/\/$/, "");
const agent = await cachedBuild(`${ROOT}/examples/world/plugins/agent/source`, "examples", "agent");
const TOKEN_ENV = "SCRIPTED_API_KEY";
Deno.env.set(TOKEN_ENV, "sk-scripted");

/** The plugin's source; `typo` returns a number where the result is a string (a type error). */
function plugin(typo: boolean): string {
  return `import { log } from "sausage";

/** Return the text in capitals. */
export function upper(params: {
  /** The text to shout. */
  text: string;
}): string {
  log("info", "shouted", { length: params.text.length });
  return ${typo ? "params.text.length" : "params.text.toUpperCase()"};
}
`;
}

const TEST = `import { assertEquals } from "sausage";
import { upper } from "./plugin";

/** upper shouts. */
export function upper_shouts() {
  assertEquals(upper({ text: "a b" }), "A B");
}
`;

/** The system prompt of a request (chat completions: the first message). */
function system(req: SeenRequest): string {
  return (req.body.messages as { content: string }[])[0].content;
}

/** The conversation: TypeScript from the SDK's declarations to an answer. */
function conversation(): Step[] {
  const src = "/plugins/tshout/source";
  const build = { name: "call", args: { method: "cargo.build", params: { plugin: "tshout" } } };
  return [
    (req) => {
      for (const where of ["TypeScript", "plugin.ts", "/proc/core/sausage.d.ts", "*_test.ts"]) {
        assert.ok(system(req).includes(where), `the system prompt names ${where}`);
      }
      return { calls: [{ name: "read_file", args: { path: "/proc/core/sausage.d.ts" } }] };
    },
    (req) => {
      const [sdk] = toolResults(req);
      assert.match(sdk.text, /declare module "sausage"/);
      assert.match(sdk.text, /export function call\(/);
      return {
        text: ["I will write tshout in TypeScript.\n"],
        calls: [
          { name: "write_file", args: { path: `${src}/plugin.ts`, content: plugin(true) } },
          { name: "write_file", args: { path: `${src}/plugin_test.ts`, content: TEST } },
        ],
      };
    },
    () => ({ calls: [build] }),
    (req) => {
      const [built] = toolResults(req);
      assert.match(built.text, /^error -32000: tshout was not built: 1 TypeScript error/);
      assert.match(
        built.text,
        /plugin\.ts:\d+:\d+: Type 'number' is not assignable to type 'string'/,
      );
      return {
        text: ["It returns a number; it should return the text.\n"],
        calls: [{ name: "write_file", args: { path: `${src}/plugin.ts`, content: plugin(false) } }],
      };
    },
    () => ({ calls: [build] }),
    (req) => {
      const [built] = toolResults(req);
      const result = JSON.parse(built.text);
      assert.match(result.wasm, /^\/state\/cargo\/builds\/\d+\/tshout\.wasm$/);
      assert.deepEqual([result.tests.passed, result.tests.failed], [1, 0]);
      return {
        calls: [{
          name: "call",
          args: { method: "core.activate", params: { plugin: "tshout", wasm: result.wasm } },
        }],
      };
    },
    (req) => {
      const [activated] = toolResults(req);
      assert.ok(!activated.text.startsWith("error"), activated.text);
      return {
        calls: [{ name: "call", args: { method: "tshout.upper", params: { text: "hello" } } }],
      };
    },
    (req) => {
      const [answer] = toolResults(req);
      assert.equal(JSON.parse(answer.text), "HELLO");
      return { text: ["tshout is active; it answered HELLO."] };
    },
  ];
}

Deno.test({
  name:
    "agent writes a TypeScript plugin: reads the SDK's declarations, fixes its type error, builds it with its test, activates and calls it",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const model = new ScriptedModel("openai", conversation());
  const h = await TestHost.start({
    plugins: { agent },
    files: {
      "config/agent.json": model.config({ token_env: TOKEN_ENV }),
      "config/limits.json": '{ "call_timeout_ms": 3600000 }',
    },
  });
  try {
    const r = await h.call("agent.chat", { text: "Make me a TypeScript plugin that shouts." });
    try {
      model.check();
    } catch (e) {
      const log = await h.result<Entry[]>("core.log", { limit: 10000 });
      const lines = log.filter((l) => l.plugin === "agent").map((l) => l.line).slice(-12);
      throw new Error(
        `${(e as Error).message}; the agent answered ${JSON.stringify(r)}\n${lines.join("\n")}`,
      );
    }
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.equal(r.result, "tshout is active; it answered HELLO.");

    // The world: a TypeScript plugin, active, with its document from its types.
    assert.equal(await h.result("tshout.upper", { text: "again" }), "AGAIN");
    const doc = await h.result<{ methods: { name: string; summary: string }[] }>(
      "tshout.rpc.discover",
      {},
    );
    assert.deepEqual(doc.methods.map((m) => [m.name, m.summary]), [
      ["upper", "Return the text in capitals."],
    ]);

    // The builds' progress reached the person as the agent's lines: the tests' run included.
    const said = h.notes
      .filter((m) => "method" in m && m.method === "core.notify")
      .map((m) => (m as unknown as { params: { name: string; params: { text: string } } }).params)
      .filter((p) => p.name === "text")
      .map((p) => p.params.text);
    assert.ok(
      said.some((t) => /^ {2}test plugin_test::upper_shouts \.\.\. ok$/.test(t)),
      said.join("\n"),
    );
    assert.ok(said.some((t) => /^· call .*cargo\.build.* → failed: error -32000/.test(t)));

    // The agent's calls, as its children in the journal: two builds, one call.
    const log = await h.result<Entry[]>("core.log", { limit: 10000 });
    const agentPid = log.find((e) => e.plugin === "agent")!.pid;
    const children = log
      .filter((e) => e.stream === "core")
      .map((e) => JSON.parse(e.line))
      .filter((e) => e.event === "start" && e.parent === agentPid)
      .map((e) => e.method);
    assert.deepEqual(children, ["build", "build", "upper"]);
  } finally {
    await model.close();
    await h.close();
  }
});
