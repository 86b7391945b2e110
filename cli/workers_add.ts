/**
 * `sausage workers add <world> <id>`: makes one worker's own credentials,
 * an nkey pair (`@nats-io/nkeys`): the seed goes to a file only the owner
 * can read (for that worker's machine, `sausage worker --nkey-file`), and
 * the line for nats-server's `authorization { users = [ … ] }` is printed,
 * allowing that worker its own subjects and nothing else
 * (`Subjects.workerPermissions`).
 *
 * @module
 */

import { createUser } from "@nats-io/nkeys";
import { UsageError } from "./args.ts";
import { parseArgs } from "./args.ts";
import { Subjects, workerIdProblem, worldNameProblem } from "../core/remote/wire.ts";

/** Usage of `workers add`. */
export const WORKERS_ADD_USAGE = "sausage workers add <world> <id> [--seed-file <file>]";

/** nats-server's configuration line of a user with `nkey` and `permissions`. */
export function nkeyUserLine(nkey: string, p: { publish: string[]; subscribe: string[] }): string {
  const list = (xs: string[]) => `[${xs.map((x) => JSON.stringify(x)).join(", ")}]`;
  return `{ nkey: "${nkey}", permissions: { publish: ${list(p.publish)}, ` +
    `subscribe: ${list(p.subscribe)} } }`;
}

/** Runs the subcommand; resolves with the exit code. */
export async function workersAdd(args: string[]): Promise<number> {
  const { positional, flags } = parseArgs(args, [], ["--seed-file"]);
  if (positional.length !== 2) throw new UsageError(`usage: ${WORKERS_ADD_USAGE}`);
  const [world, id] = positional;
  const problem = worldNameProblem(world) ?? workerIdProblem(id);
  if (problem) throw new UsageError(problem);
  const file = (flags.get("--seed-file") as string | undefined) ?? `${world}.${id}.nk`;
  const user = createUser();
  const seed = new TextDecoder().decode(user.getSeed());
  try {
    await Deno.writeTextFile(file, seed + "\n", { createNew: true, mode: 0o600 });
  } catch (e) {
    if (e instanceof Deno.errors.AlreadyExists) {
      console.error(`sausage: ${file} exists: remove it first, or give another --seed-file`);
      return 1;
    }
    throw e;
  }
  console.log(nkeyUserLine(user.getPublicKey(), new Subjects(world).workerPermissions(id)));
  console.error(
    `sausage: worker ${id}'s seed is in ${file} (keep it secret: on that worker's machine only).\n` +
      `  Add the line above to the users of nats-server's authorization block, reload it\n` +
      `  (nats-server --signal reload), and start the worker with\n` +
      `  sausage worker --nats <url> --world ${world} --id ${id} --nkey-file ${file}`,
  );
  return 0;
}
