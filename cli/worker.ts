/**
 * `sausage worker --nats <url> --world <name>`: offers this machine's
 * sandboxes to a world's host over NATS until Ctrl-C or SIGTERM
 * (`worker/worker.ts`). Its credentials are its own: an nkey seed
 * (`--nkey-file`, made by `sausage workers add`) or a user whose password
 * comes from `--password-file` or `SAUSAGE_NATS_PASSWORD`, never the
 * command line; `--id` is the id they were made for.
 *
 * @module
 */

import { parseArgs, UsageError } from "./args.ts";
import { cacheDir } from "../core/paths.ts";
import { Worker } from "../worker/worker.ts";
import { workerIdProblem, worldNameProblem } from "../core/remote/wire.ts";
import { defaultLimits } from "../core/world/limits.ts";

/** Usage of `worker`. */
export const WORKER_USAGE = "sausage worker --nats <url> --world <name> [--user <user>] " +
  "[--password-file <file> | --nkey-file <file>] [--ca-file <pem>] [--sandboxes <n>] [--memory-mib <n>] [--id <id>]";

/** The prefix of a worker's scratch folder, before its OS pid. */
const SCRATCH = "sausage-worker-";

/**
 * Removes the scratch folders of workers that died without cleaning up
 * (SIGKILL): those in `tmp` whose pid runs no process. A pid reused since
 * keeps its folder until a later start.
 */
export async function removeStaleScratch(tmp: string): Promise<void> {
  try {
    for await (const e of Deno.readDir(tmp)) {
      const pid = new RegExp(`^${SCRATCH}(\\d+)-`).exec(e.name)?.[1];
      if (!pid || !e.isDirectory) continue;
      const alive = await Deno.stat(`/proc/${pid}`).then(() => true, () => false);
      if (!alive) await Deno.remove(`${tmp}/${e.name}`, { recursive: true }).catch(() => {});
    }
  } catch { /* not ours to list */ }
}

/** Runs the subcommand; resolves with the exit code when it is stopped. */
export async function worker(args: string[]): Promise<number> {
  const { positional, flags } = parseArgs(args, [], [
    "--nats",
    "--world",
    "--user",
    "--password-file",
    "--nkey-file",
    "--ca-file",
    "--sandboxes",
    "--memory-mib",
    "--id",
  ]);
  const url = flags.get("--nats");
  const world = flags.get("--world");
  if (positional.length || typeof url !== "string" || typeof world !== "string") {
    throw new UsageError(`usage: ${WORKER_USAGE}`);
  }
  const problem = worldNameProblem(world);
  if (problem) throw new UsageError(problem);
  const sandboxes = flags.has("--sandboxes") ? Number(flags.get("--sandboxes")) : undefined;
  if (sandboxes !== undefined && !(Number.isInteger(sandboxes) && sandboxes >= 1)) {
    throw new UsageError("--sandboxes takes a whole number of at least 1");
  }
  const limits = defaultLimits();
  // Its processes' memories together, like a world's `world_memory_mib` (default: half this machine's).
  const memoryMib = flags.has("--memory-mib")
    ? Number(flags.get("--memory-mib"))
    : limits.world_memory_mib;
  if (!(Number.isInteger(memoryMib) && memoryMib >= 16)) {
    throw new UsageError("--memory-mib takes a whole number of at least 16");
  }
  const file = flags.get("--password-file");
  const password = typeof file === "string"
    ? (await Deno.readTextFile(file)).trim()
    : Deno.env.get("SAUSAGE_NATS_PASSWORD");
  const nkeyFile = flags.get("--nkey-file");
  const nkeySeed = typeof nkeyFile === "string"
    ? (await Deno.readTextFile(nkeyFile)).trim()
    : undefined;
  const id = flags.get("--id") as string | undefined;
  if (id !== undefined && workerIdProblem(id)) throw new UsageError(workerIdProblem(id)!);
  if (id === undefined && (nkeySeed !== undefined || flags.has("--user"))) {
    throw new UsageError(
      "--id is needed with a worker's own credentials (--user, --nkey-file): the id they were made for",
    );
  }
  const ca = flags.get("--ca-file");
  const cache = `${cacheDir()}/workers/${world}`;
  await Deno.mkdir(cache, { recursive: true, mode: 0o700 });
  const scratch = await Deno.makeTempDir({ prefix: `${SCRATCH}${Deno.pid}-` });
  await removeStaleScratch(scratch.slice(0, scratch.lastIndexOf("/")));
  const w = new Worker({
    url,
    world,
    user: flags.get("--user") as string | undefined,
    password,
    caCerts: typeof ca === "string" ? [await Deno.readTextFile(ca)] : undefined,
    id,
    nkeySeed,
    sandboxes,
    cache,
    scratch,
    maxLine: limits.line_mib * 2 ** 20,
    stallMs: limits.stall_ms,
    memoryBytes: memoryMib * 2 ** 20,
    report: (line) => console.error(`sausage: ${line}`),
  });
  await w.start();
  const stopped = new Promise<string>((resolve) => {
    for (const sig of ["SIGINT", "SIGTERM"] as const) {
      Deno.addSignalListener(sig, () => resolve(sig));
    }
  });
  await stopped;
  w.close();
  await Deno.remove(scratch, { recursive: true }).catch(() => {});
  return 0;
}
