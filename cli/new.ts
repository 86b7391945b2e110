/**
 * `sausage new <world> [plugin | --example | --agent]`: makes a world (`config/boot.json`, and a
 * first plugin, `hello`: Rust, or TypeScript with `--lang ts`), or adds a plugin to a world
 * (`plugins/<plugin>/source/`, a cargo project that builds as it is). Either
 * way it writes the world's `.cargo/config.toml`, so that `cargo test` works
 * in the plugin's folder at once. It never overwrites: an existing plugin, or
 * a non-empty folder that is not a world, is refused. `--example` makes a
 * copy of the example world instead (`example_world.ts`); `--agent` adds the
 * example world's `agent` plugin to a world (made first when missing), with
 * `config/agent.json` and a `call_timeout_ms` that lets its turns take minutes.
 *
 * @module
 */

import { writeCargoConfig } from "../core/cargo/author_config.ts";
import { pluginNameProblem } from "../core/world/world.ts";
import { parseArgs, UsageError } from "./args.ts";
import { copyExampleWorld, EXAMPLE_WORLD } from "./example_world.ts";
import { selfName } from "./self_name.ts";
import { pluginFiles, worldFiles } from "./scaffold.ts";
import { langOf, templateNext, writeTemplate } from "./plugin_templates.ts";
import { isWorld } from "./world_arg.ts";

/** Usage of `new`. */
export const NEW_USAGE =
  "sausage new <world> [plugin [--lang rust|ts|c|assemblyscript] | --example | --agent]";

/** The first plugin of a new world. */
const FIRST_PLUGIN = "hello";

async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [rel, text] of Object.entries(files)) {
    const path = `${root}/${rel}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, text, { createNew: true });
  }
}

async function entries(path: string): Promise<number | undefined> {
  try {
    return (await Array.fromAsync(Deno.readDir(path))).length;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  }
}

/** `sausage new <world> --example`: a copy of the example world, ready for cargo. */
async function newExample(world: string, me = selfName()): Promise<number> {
  const count = await entries(world);
  if (count !== undefined && count > 0) {
    throw new Error(`${world} is a folder that is not empty: choose a new folder for the example`);
  }
  const files = await copyExampleWorld(world);
  await writeCargoConfig(world, { onProgress: (line) => console.error(line), syncSdk: true });
  const plugins = [...new Set(files.flatMap((f) => f.match(/^plugins\/([^/]+)\//)?.[1] ?? []))];
  console.log(
    `made the example world ${world} (plugins ${plugins.join(", ")}; ${world}/README.md). Next:
  ${me} run ${world}               # builds its plugins, then runs it
  ${me} call ${world} hello.greet '{"name": "Ada"}'`,
  );
  return 0;
}

/** The limits a world with an agent needs: its turns write, build and test plugins for minutes. */
const AGENT_LIMITS = `// The limits of this world (PROTOCOL.md 4.9); every key is optional.
{
  // The agent's turn writes, builds and tests plugins: it may take minutes, past the 60 s default.
  "call_timeout_ms": 3600000
}
`;

/** Adds the example world's agent to `world`: its source, `config/agent.json`, the limits it needs. */
async function addAgent(world: string): Promise<string[]> {
  if (await entries(`${world}/plugins/agent`) !== undefined) {
    throw new Error(`${world}/plugins/agent exists already`);
  }
  await copyExampleWorld(`${world}/plugins/agent/source`, `${EXAMPLE_WORLD}/plugins/agent/source`);
  const notes: string[] = [];
  try {
    await Deno.copyFile(`${EXAMPLE_WORLD}/config/agent.json`, `${world}/config/agent.json`);
  } catch { /* kept */ }
  try {
    await Deno.writeTextFile(`${world}/config/limits.json`, AGENT_LIMITS, { createNew: true });
  } catch (e) {
    if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
    notes.push(
      `  (config/limits.json exists: raise its call_timeout_ms, e.g. to 3600000, for the agent's turns)`,
    );
  }
  return notes;
}

/** The lines after `--agent`: the key, then talking to it. */
function agentNext(world: string, me: string, run = true): string {
  return `  export OPENAI_API_KEY=sk-...      # config/agent.json names the model and the variable` +
    (run
      ? `\n  ${me} run ${world}               # builds the agent; type a message at the prompt`
      : "");
}

/** Runs the subcommand; resolves with the exit code. */
export async function newCommand(args: string[]): Promise<number> {
  const { positional, flags } = parseArgs(args, ["--example", "--agent"], ["--lang"]);
  const lang = langOf(flags.get("--lang"));
  if (positional.length < 1 || positional.length > 2) throw new UsageError(`usage: ${NEW_USAGE}`);
  const [world, plugin] = positional;
  // A new world's first plugin may be TypeScript (no Rust toolchain needed); C and
  // AssemblyScript plugins are added to a world.
  if (lang !== "rust" && (flags.size > 1 || (plugin === undefined && lang !== "ts"))) {
    throw new UsageError(
      `--lang makes a plugin in a world: sausage new <world> <plugin> --lang ${lang}`,
    );
  }
  const me = selfName();
  if (flags.has("--example")) {
    if (plugin !== undefined || flags.has("--agent")) throw new UsageError(`usage: ${NEW_USAGE}`);
    return await newExample(world);
  }
  if (flags.has("--agent")) {
    if (plugin !== undefined) throw new UsageError(`usage: ${NEW_USAGE}`);
    if (isWorld(world)) {
      const notes = await addAgent(world);
      await writeCargoConfig(world, { onProgress: (line) => console.error(line), syncSdk: true });
      console.log(
        [`added the agent to ${world} (plugins/agent/source/, config/agent.json). Next:`, ...notes]
          .join("\n") + `\n${agentNext(world, me)}`,
      );
      return 0;
    }
  }
  const name = plugin ?? FIRST_PLUGIN;
  const problem = pluginNameProblem(name);
  if (problem) throw new UsageError(problem);
  const progress = (line: string) => console.error(line);

  if (plugin === undefined) {
    const count = await entries(world);
    if (count !== undefined && count > 0) {
      throw new Error(
        isWorld(world)
          ? `${world} is already a world: add a plugin with \`sausage new ${world} <plugin>\``
          : `${world} is a folder that is not empty: choose a new folder for the world`,
      );
    }
    // Owner-only: the world's state (the journal: every call's params) is nobody else's.
    if (count === undefined) await Deno.mkdir(world, { recursive: true, mode: 0o700 });
    await writeFiles(world, worldFiles());
  } else if (!isWorld(world)) {
    throw new Error(
      `${world} is not a world (no plugins/ or config/ folder): make one with \`sausage new ${world}\``,
    );
  }
  const source = `${world}/plugins/${name}/source`;
  if (await entries(`${world}/plugins/${name}`) !== undefined) {
    throw new Error(`${world}/plugins/${name} exists already: choose another plugin name`);
  }
  if (lang !== "rust") {
    // Another language (docs/languages.md): its template, built by its own toolchain.
    await writeTemplate(lang, name, source);
    console.log(
      plugin === undefined
        ? `made the world ${world}: it holds the TypeScript plugin ${name} (plugins/${name}/source/plugin.ts), ` +
          `and no agent (add one with \`${me} new ${world} --agent\`). Next:
  ${me} build ${world} ${name}     # type-check, test, build and activate it
  ${me} call ${world} ${name}.greet '{"name": "Ada"}'
  ${me} run ${world}               # run the world (builds what is not built)
  ${me} new ${world} <plugin> --lang ts   # another plugin`
        : templateNext(lang, world, name, me),
    );
    return 0;
  }
  await writeFiles(source, pluginFiles(name));
  const agent = flags.has("--agent");
  if (agent) await addAgent(world);
  await writeCargoConfig(world, { onProgress: progress, syncSdk: true });
  console.log(
    plugin === undefined
      ? `made the world ${world}: it holds the plugin ${name} (plugins/${name}/source/)${
        agent
          ? " and the agent (plugins/agent/source/, config/agent.json)"
          : `, and no agent (add one with \`${me} new ${world} --agent\`: it needs a model's API key)`
      }. Next:
  cd ${source} && cargo test      # its tests, under WASI
  ${me} build ${world} ${name}     # test, build and activate it
  ${me} run ${world}               # run the world (builds what is not built)
  ${me} new ${world} <plugin>      # another plugin
${
        agent
          ? agentNext(world, me, false)
          : `  ${me} new ${world} --agent       # an agent that writes plugins (a model's API key)`
      }`
      : `made the plugin ${name} in ${source}/. Next:
  cd ${source} && cargo test
  ${me} build ${world} ${name}`,
  );
  return 0;
}
