/**
 * `sausage cache <list|clear> [--json]`: the compile cache (section 16):
 * what it holds, its bound, and emptying it. `--cache-dir <folder>` (any
 * command) or `SAUSAGE_CACHE_DIR` chooses the folder; `SAUSAGE_CACHE_MIB`
 * its bound.
 *
 * @module
 */

import { parseArgs, UsageError } from "./args.ts";
import { formatJson, table } from "./output.ts";
import { cacheDir } from "../core/paths.ts";
import { cacheBound, clearEntries, listEntries } from "../core/cache/cache_entries.ts";

/** Usage of `cache`. */
export const CACHE_USAGE = "sausage cache <list|clear> [--json]";

const mib = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;

/** Runs the subcommand; resolves with the exit code. */
export async function cache(args: string[]): Promise<number> {
  const { positional, flags } = parseArgs(args, ["--json"], []);
  const [what] = positional;
  const dir = cacheDir();
  if (what === "list" && positional.length === 1) {
    const entries = await listEntries(dir);
    const total = entries.reduce((n, e) => n + e.size, 0);
    if (flags.has("--json")) {
      console.log(formatJson({ folder: dir, bound: cacheBound(), total, entries }));
      return 0;
    }
    console.log(`${dir}: ${entries.length} components, ${mib(total)} of ${mib(cacheBound())}`);
    if (entries.length) {
      console.log(table(
        ["COMPONENT", "ENGINE", "SIZE", "LAST USED"],
        entries.map((e) => [
          e.hash.slice(0, 16),
          e.engine,
          mib(e.size),
          new Date(e.used).toLocaleString(),
        ]),
      ));
    }
    return 0;
  }
  if (what === "clear" && positional.length === 1) {
    const freed = await clearEntries(dir);
    console.log(`${dir}: cleared, ${mib(freed)} freed`);
    return 0;
  }
  throw new UsageError(`usage: ${CACHE_USAGE}`);
}
