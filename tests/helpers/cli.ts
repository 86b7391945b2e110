/**
 * Running `./sausage` as a person would: a subprocess of the launcher, with
 * what it printed and its exit code.
 *
 * @module
 */

/** The launcher of this checkout. */
export const launcher = new URL("../../sausage", import.meta.url).pathname;

/** The checkout's folder: the working folder of the commands tests start. */
export const CHECKOUT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** What a finished `sausage` printed, and its exit code. */
export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `sausage <args>` to its end. */
export async function sausage(...args: string[]): Promise<Ran> {
  // In the checkout, not the test process's working folder: under `deno test --parallel` another
  // module's thread may be inside a world folder for a moment (`vfs/confined_dir.ts`), and a
  // command started then would keep that folder, which its test removes.
  const out = await new Deno.Command(launcher, {
    args,
    cwd: CHECKOUT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** What {@link sausageWith} gives the command beyond its arguments. */
export interface RunOptions {
  /** Written to its stdin, which then ends (default: no stdin). */
  stdin?: string;
  /** Variables added to the environment the command inherits. */
  env?: Record<string, string>;
}

/** Runs `sausage <args>` to its end, with `opts.stdin` on its stdin and `opts.env` added. */
export async function sausageWith(opts: RunOptions, ...args: string[]): Promise<Ran> {
  const child = new Deno.Command(launcher, {
    args,
    cwd: CHECKOUT, // as `sausage` does, for the same reason
    env: opts.env,
    stdin: opts.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (opts.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(opts.stdin));
    await writer.close();
  }
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}
