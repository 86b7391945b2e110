/**
 * How the user started this program, for the commands that hints suggest:
 * `./sausage` when the launcher was run by a relative path (as the README
 * does), `sausage` when it was found on `PATH` or run by a full path. The
 * launcher passes its `$0` as `SAUSAGE_ARGV0`.
 *
 * @module
 */

/** The command to type for this program in hints (`./sausage`, `sausage`). */
export function selfName(argv0 = Deno.env.get("SAUSAGE_ARGV0")): string {
  if (!argv0 || argv0.startsWith("/") || !argv0.includes("/")) return "sausage";
  return /^[\w@%+=:,./-]+$/.test(argv0) ? argv0 : "sausage";
}
