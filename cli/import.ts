/**
 * `sausage import <world> <consumer> <provider> [--built] [--prune]`: copies
 * the provider's current `rpc.discover` document (with `--built`, that of
 * its newest build, activated or not: `state/cargo/builds/<n>/<provider>.openrpc.json`,
 * so a consumer can follow a change before both are activated together)
 * into the consumer's
 * `source/imports/<provider>.json`, where `sausage_plugin::import!("<provider>")`
 * reads it to make a typed client. With `--prune` it then builds the consumer
 * (`cargo.build`, not activated) and drops from the copy the methods that the
 * build's warnings call unused, so that fewer changes of the provider break
 * the consumer (activation compares what a consumer imports).
 *
 * @module
 */

import { readWorldFile, writeWorldFile } from "../core/world/world_files.ts";
import { parseArgs, UsageError } from "./args.ts";
import { checkPluginSource, printProgress } from "./build.ts";
import { errorText } from "./error_text.ts";
import { withWorld } from "./world_session.ts";
import { openWorld } from "./world_arg.ts";
import { pluginNameProblem } from "../core/mod.ts";
import { tsClientSource } from "../core/typescript/ts_client.ts";
import { isTsSource } from "../core/typescript/ts_source.ts";

/** Usage of `import`. */
export const IMPORT_USAGE = "sausage import <world> <consumer> <provider> [--built] [--prune]";

/**
 * The `rpc.discover` document of `provider`'s newest build in `root`
 * (`state/cargo/builds/<n>/<provider>.openrpc.json`, highest `n` first), with
 * its world path; null when no build of it kept one.
 */
export function newestBuiltDocument(
  root: string,
  provider: string,
): { path: string; doc: { methods?: { name: string }[] } } | null {
  let numbers: number[];
  try {
    numbers = [...Deno.readDirSync(`${root}/state/cargo/builds`)]
      .filter((e) => e.isDirectory && /^\d+$/.test(e.name)).map((e) => Number(e.name));
  } catch {
    return null;
  }
  for (const n of numbers.sort((a, b) => b - a)) {
    const path = `/state/cargo/builds/${n}/${provider}.openrpc.json`;
    try {
      const text = new TextDecoder().decode(readWorldFile(root, `${root}${path}`, path));
      return { path, doc: JSON.parse(text) };
    } catch { /* not a build of the provider */ }
  }
  return null;
}

/** Runs the subcommand; resolves with the exit code. */
export async function importCommand(args: string[]): Promise<number> {
  const { positional, flags } = parseArgs(args, ["--prune", "--built"], []);
  if (positional.length !== 3) throw new UsageError(`usage: ${IMPORT_USAGE}`);
  const [path, consumer, provider] = positional;
  const world = openWorld(path);
  checkPluginSource(world, consumer);
  const problem = pluginNameProblem(provider);
  if (problem) throw new UsageError(problem);
  // Written confined to the world: a link a guest left on the way is refused or replaced.
  const file = `plugins/${consumer}/source/imports/${provider}.json`;
  const doc = await withWorld(world, "import", printProgress, async (send) => {
    let doc: { methods?: { name: string }[] };
    if (flags.has("--built")) {
      const built = newestBuiltDocument(world.root, provider);
      if (!built) {
        throw new Error(
          `${provider} has no build with its document in ${world.root}/state/cargo/builds: ` +
            `build it first (sausage build ${path} ${provider})`,
        );
      }
      console.error(`sausage: the document of ${provider}'s build ${built.path}`);
      doc = built.doc;
    } else {
      const response = await send(`${provider}.rpc.discover`, {});
      if (response.error) {
        console.error(errorText(response.error));
        throw new Error(`${provider}'s document could not be read: build it first (sausage build)`);
      }
      doc = response.result as { methods?: { name: string }[] };
    }
    writeWorldFile(world.root, file, JSON.stringify(doc, null, 2) + "\n");
    if (!flags.has("--prune")) return doc;
    const built = await send("cargo.build", { plugin: consumer });
    if (built.error) {
      console.error(errorText(built.error));
      throw new Error(`${consumer} did not build, so nothing was pruned (the copy is whole)`);
    }
    const unused = new Set(
      ((built.result as { warnings?: string[] }).warnings ?? []).flatMap((w) => {
        const m = w.match(/^(\S+)\.([^.\s]+) is imported but not used/);
        return m && m[1] === provider ? [m[2]] : [];
      }),
    );
    doc.methods = (doc.methods ?? []).filter((m) => !unused.has(m.name));
    writeWorldFile(world.root, file, JSON.stringify(doc, null, 2) + "\n");
    console.error(
      unused.size
        ? `sausage: dropped ${[...unused].join(", ")} (not used by ${consumer})`
        : `sausage: ${consumer} uses every imported method`,
    );
    return doc;
  });
  // The typed client of a TypeScript consumer, beside the document (core/typescript/ts_client.ts).
  writeWorldFile(world.root, file.replace(/\.json$/, ".ts"), tsClientSource(provider, doc));
  const methods = (doc.methods ?? []).map((m) => m.name);
  const wrote = `wrote plugins/${consumer}/source/imports/${provider}.json (${methods.join(", ")})`;
  console.log(
    isTsSource(`${world.pluginDir(consumer)}/source`)
      ? `${wrote} and its typed client imports/${provider}.ts. In ${consumer}'s plugin.ts:\n` +
        `  import { ${methods[0] ?? "<method>"} } from "./imports/${provider}";`
      : `${wrote}. ` +
        `In ${consumer}'s src/main.rs:\n  sausage_plugin::import!("${provider}");\n` +
        `then call it as ${provider}::<method>(…).await (see the client: sausage cat ${path} ` +
        `/proc/core/plugins/${provider}/client.rs); in TypeScript: ` +
        `import { <method> } from "./imports/${provider}" (imports/${provider}.ts)`,
  );
  return 0;
}
