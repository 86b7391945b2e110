/**
 * `sausage secret <set|list|rm> <world> [name]`: the world's secrets
 * (PROTOCOL 9.1), kept outside the world in a file of the owner's
 * (`core/secrets/`). No host is needed: these edit the file, and a running
 * host reads it at each `core.secret`, so a change takes effect at the next
 * call. `set` reads the value from stdin (`secret_value.ts`); nothing here
 * prints a value.
 *
 * @module
 */

import { parseArgs, UsageError } from "./args.ts";
import { formatJson, table } from "./output.ts";
import { openWorld } from "./world_arg.ts";
import { readSecretValue } from "./secret_value.ts";
import { SECRET_ACTIONS } from "./command_names.ts";
import { secretNameProblem } from "../core/secrets/secret_name.ts";
import { readSecretGrants } from "../core/secrets/secrets_config.ts";
import { readSecretStore, removeSecret, setSecret } from "../core/secrets/secret_store.ts";
import { secretsFilePath } from "../core/secrets/secrets_path.ts";

/** Usage of `secret`. */
export const SECRET_USAGE = "sausage secret <set|list|rm> <world> [name] [--json]";

/** One secret as `list` shows it: never its value. */
export interface SecretListing {
  name: string;
  /** Whether a value is set. */
  set: boolean;
  /** The plugins `config/secrets.json` lets read it (empty: none). */
  plugins: string[];
}

/** Runs the subcommand; resolves with the exit code. */
export async function secret(args: string[]): Promise<number> {
  const { positional, flags } = parseArgs(args, ["--json"], []);
  const [action, worldArg, name] = positional;
  const usage = () => new UsageError(`usage: ${SECRET_USAGE}`);
  if (!(SECRET_ACTIONS as readonly string[]).includes(action) || worldArg === undefined) {
    throw usage();
  }
  if ((action === "list") !== (name === undefined) || positional.length > 3) throw usage();
  const world = openWorld(worldArg);
  const path = await secretsFilePath(world.root);
  if (action === "list") return list(world.root, path, flags.has("--json"));
  const problem = secretNameProblem(name);
  if (problem) throw new UsageError(problem);
  if (action === "set") {
    setSecret(path, world.root, name, await readSecretValue(name));
    const { grants } = readSecretGrants(world.root);
    const readers = [...(grants.get(name) ?? [])];
    console.error(
      `sausage: ${name} set for ${world.root} (in ${path}); ` +
        (readers.length
          ? `${readers.join(", ")} may read it`
          : `no plugin may read it yet: add {"${name}": {"plugins": [...]}} to config/secrets.json`),
    );
    return 0;
  }
  if (!removeSecret(path, world.root, name)) {
    console.error(`sausage: no secret ${name} is set for ${world.root}`);
    return 1;
  }
  console.error(`sausage: ${name} removed for ${world.root}`);
  return 0;
}

/** `secret list`: every secret that is set or granted, with its readers; problems on stderr. */
function list(root: string, path: string, json: boolean): number {
  const { grants, problems } = readSecretGrants(root);
  for (const p of problems) console.error(`sausage: ${p}`);
  const set = readSecretStore(path, root).secrets;
  const names = [...new Set([...Object.keys(set), ...grants.keys()])].sort();
  const rows: SecretListing[] = names.map((name) => ({
    name,
    set: Object.hasOwn(set, name),
    plugins: [...(grants.get(name) ?? [])],
  }));
  if (json) {
    console.log(formatJson(rows));
    return 0;
  }
  if (!rows.length) {
    console.log("no secrets: set one with `sausage secret set <world> <name>` (value on stdin)");
    return 0;
  }
  console.log(table(
    ["NAME", "SET", "PLUGINS"],
    rows.map((r) => [r.name, r.set ? "yes" : "no", r.plugins.join(", ") || "(none)"]),
  ));
  return 0;
}
