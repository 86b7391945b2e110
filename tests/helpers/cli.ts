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
