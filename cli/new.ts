/**
 * `sausage new <world> [plugin]`: makes a world (`config/boot.json`, and a
 * first plugin, `hello`), or adds a plugin to a world
 * (`plugins/<plugin>/source/`, a cargo project that builds as it is). Either
 * way it writes the world's `.cargo/config.toml`, so that `cargo test` works
 * in the plugin's folder at once. It never overwrites: an existing plugin, or
 * a non-empty folder that is not a world, is refused.
 *
 * @module
 */

import { writeCargoConfig } from "../core/cargo/author_config.ts";
import { pluginNameProblem } from "../core/world.ts";
import { parseArgs, UsageError } from "./args.ts";
import { pluginFiles, worldFiles } from "./scaffold.ts";
import { isWorld } from "./world_arg.ts";

/** Usage of `new`. */
export const NEW_USAGE = "sausage new <world> [plugin]";

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

/** Runs the subcommand; resolves with the exit code. */
export async function newCommand(args: string[]): Promise<number> {
  const { positional } = parseArgs(args, [], []);
  if (positional.length < 1 || positional.length > 2) throw new UsageError(`usage: ${NEW_USAGE}`);
  const [world, plugin] = positional;
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
  await writeFiles(source, pluginFiles(name));
  await writeCargoConfig(world, { onProgress: progress });
  console.log(
    plugin === undefined
      ? `made the world ${world} with the plugin ${name} (plugins/${name}/source/). Next:
  cd ${source} && cargo test      # its tests, under WASI
  sausage build ${world} ${name}     # test, build and activate it
  sausage run ${world}               # run the world (builds what is not built)
  sausage new ${world} <plugin>      # another plugin`
      : `made the plugin ${name} in ${source}/. Next:
  cd ${source} && cargo test
  sausage build ${world} ${name}`,
  );
  return 0;
}
