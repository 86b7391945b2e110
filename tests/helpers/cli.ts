/**
 * Running `./sausage` as a person would: a subprocess of the launcher, with
 * what it printed and its exit code.
 *
 * @module
 */

/** The launcher of this checkout. */
export const launcher = new URL("../../sausage", import.meta.url).pathname;

/** What a finished `sausage` printed, and its exit code. */
export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `sausage <args>` to its end. */
export async function sausage(...args: string[]): Promise<Ran> {
  const out = await new Deno.Command(launcher, { args, stdout: "piped", stderr: "piped" }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}
