import { strict as assert } from "node:assert";
import { agentTokenEnv } from "./agent_token.ts";

Deno.test("only the agent gets the variable its config names, and only a *_API_KEY one", async () => {
  const root = await Deno.makeTempDir();
  const env = (n: string) =>
    ({ OPENAI_API_KEY: "sk-1", HOME: "/root" } as Record<string, string>)[n];
  try {
    assert.deepEqual(agentTokenEnv(root, "agent", env), [], "no config, nothing");
    await Deno.mkdir(`${root}/config`);
    await Deno.writeTextFile(`${root}/config/agent.json`, '{"token_env": "OPENAI_API_KEY"}');
    assert.deepEqual(agentTokenEnv(root, "agent", env), [["OPENAI_API_KEY", "sk-1"]]);
    assert.deepEqual(agentTokenEnv(root, "notes", env), [], "other plugins get nothing");
    await Deno.writeTextFile(`${root}/config/agent.json`, '{"token_env": "HOME"}');
    assert.deepEqual(agentTokenEnv(root, "agent", env), [], "a name of another form is not passed");
    await Deno.writeTextFile(`${root}/config/agent.json`, '{"token_env": "OTHER_API_KEY"}');
    assert.deepEqual(agentTokenEnv(root, "agent", env), [], "an unset variable is not passed");
    await Deno.writeTextFile(`${root}/config/agent.json`, "{broken");
    assert.deepEqual(agentTokenEnv(root, "agent", env), []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
