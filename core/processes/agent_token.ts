/**
 * The one variable of the host's environment that a guest may see: the
 * agent's token. Processes get only `SAUSAGE_*` variables (PROTOCOL.md 4.7);
 * processes of the plugin `agent` also get the variable that `token_env` in
 * `config/agent.json` names, when its name ends in `_API_KEY` and the host
 * has it. The token itself never enters the world.
 *
 * @module
 */

import { readConfigFile } from "../world/config_file.ts";

/** The plugin whose processes may get the token. */
const AGENT_PLUGIN = "agent";

/** The names `token_env` may give: capitals, digits and `_`, ending in `_API_KEY`. */
const TOKEN_ENV_NAME = /^[A-Z][A-Z0-9_]*_API_KEY$/;

/**
 * The environment entries that a new process of `plugin` gets beyond the
 * `SAUSAGE_*` ones: `[[name, value]]` for the agent when `config/agent.json`
 * of the world at `root` names a variable of the right form that is set,
 * else nothing. A missing or broken file gives nothing (the agent says
 * what to fix).
 */
export function agentTokenEnv(
  root: string,
  plugin: string,
  env: (name: string) => string | undefined = (name) => Deno.env.get(name),
): [string, string][] {
  if (plugin !== AGENT_PLUGIN) return [];
  let name: unknown;
  try {
    name = (readConfigFile(root, "config/agent.json") as { token_env?: unknown })?.token_env;
  } catch {
    return [];
  }
  if (typeof name !== "string" || !TOKEN_ENV_NAME.test(name)) return [];
  const value = env(name);
  return value === undefined || value === "" ? [] : [[name, value]];
}
