/**
 * The agent from the console, as a person uses it: `./sausage run` in a tmux
 * pane on a world with the example agent, whose `config/agent.json` points
 * at a scripted model server in this test. Free text runs `agent.chat`; the
 * model's lines appear dimmed as they stream, then the final text.
 */

import { strict as assert } from "node:assert";
import { cachedBuild } from "../core/cargo/cached_build.ts";
import { eventually } from "./helpers/host.ts";
import { ScriptedModel, toolResults } from "./helpers/scripted_model.ts";
import { Terminal } from "./helpers/terminal.ts";
import { makeWorld } from "./helpers/world.ts";

const ROOT = decodeURIComponent(new URL("..", import.meta.url).pathname).replace(/\/$/, "");
const agent = await cachedBuild(`${ROOT}/examples/world/plugins/agent/source`, "examples", "agent");
const notes = await cachedBuild(`${ROOT}/examples/notes`, "test-plugins", "notes");

/** Lines of a screen, without trailing spaces and empty lines at the end. */
function linesOf(screen: string): string[] {
  const lines = screen.split("\n").map((l) => l.trimEnd());
  while (lines.length && lines.at(-1) === "") lines.pop();
  return lines;
}

Deno.test({
  name: "console: free text runs agent.chat; its lines appear dimmed as the model writes, " +
    "then the final text",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  let t: Terminal | undefined;
  const model = new ScriptedModel("openai", [
    () => ({
      text: ["Looking around.\n"],
      calls: [{ name: "list_dir", args: { path: "/plugins" } }],
    }),
    (req) => {
      assert.match(toolResults(req)[0].text, /notes\//);
      return {
        text: [
          "The world has agent and notes.\n",
          // The person sees that line before the model has finished.
          () =>
            eventually(
              async () => /^ {2}The world has agent and notes\.$/m.test(await t!.screen()),
              "the streamed line on the screen",
              15_000,
            ).then(() => {}),
          "That is all.",
        ],
      };
    },
  ]);
  const world = await makeWorld({
    plugins: { agent, notes },
    files: { "config/agent.json": model.config({ token_env: "SCRIPTED_API_KEY" }) },
  });
  try {
    t = await Terminal.start(`${ROOT}/sausage run ${world}`, {
      env: { NO_COLOR: "", SCRIPTED_API_KEY: "sk-console" },
    });
    await t.waitFor((s) => linesOf(s).at(-1) === ">", "the prompt", 60_000);
    await t.type("what is in this world?");
    await t.press("Enter");
    const screen = linesOf(
      await t.waitFor(
        (s) => linesOf(s).at(-1) === ">" && /That is all\./.test(s),
        "the agent's answer",
        60_000,
      ),
    );
    const at = screen.lastIndexOf("> what is in this world?");
    assert.deepEqual(screen.slice(at + 1, -1), [
      "  Looking around.",
      '  · list_dir {"path":"/plugins"} → ok',
      "  The world has agent and notes.",
      "  That is all.",
    ]); // the final text once: it was streamed
    const colored = await t.screen(true);
    const dimmed = colored.split("\n").find((l) => l.includes("Looking around."));
    assert.ok(dimmed?.includes("\x1b[2m"), `interim lines are dimmed: ${JSON.stringify(dimmed)}`);
    assert.equal(model.requests[0].headers.get("authorization"), "Bearer sk-console");
    model.check();
  } finally {
    await t?.close();
    await model.close();
    await Deno.remove(world, { recursive: true }).catch(() => {});
  }
});
