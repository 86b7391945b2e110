/**
 * The `cabi_realloc` object linked into every module built on the offline
 * `wasm32-wasip1` path, so that the preview-1 adapter allocates its stack
 * and state with the program's malloc rather than with `memory.grow`, which
 * the 2022 wasi-libc counts as its heap (`core/cargo/cabi_realloc.c` says
 * why; DECISIONS.md has the failure it fixes).
 *
 * @module
 */

import type { WasiCc } from "./wasi_cc.ts";
import { sha256 } from "../cache/sha256.ts";

const SOURCE = new URL("./cabi_realloc.c", import.meta.url);

/**
 * Compiles `cabi_realloc.c` with the WASI clang into `root` (once per
 * version of the source) and resolves with the object's path. Rejects with
 * the compiler's output when it fails.
 */
export function prepareMainRealloc(root: string, cc: WasiCc): Promise<string> {
  return compileWasiObject(root, cc, SOURCE, "cabi_realloc");
}

/**
 * Compiles the C file `source` with the WASI clang into `root` as
 * `<stem>-<hash of the source>.o` (once per version of the source) and
 * resolves with the object's path. Rejects with the compiler's output when
 * it fails.
 */
export async function compileWasiObject(
  root: string,
  cc: WasiCc,
  source: URL,
  stem: string,
): Promise<string> {
  const key = (await sha256(await Deno.readFile(source))).slice(0, 16);
  const object = `${root}/${stem}-${key}.o`;
  if (await Deno.stat(object).then(() => true, () => false)) return object;
  await Deno.mkdir(root, { recursive: true });
  const tmp = `${object}.tmp-${crypto.randomUUID()}`;
  const r = await new Deno.Command(cc.cc, {
    args: [...cc.cflags.split(" "), "-O2", "-c", source.pathname, "-o", tmp],
    cwd: "/",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!r.success) {
    await Deno.remove(tmp).catch(() => {});
    const out = new TextDecoder().decode(r.stderr) + new TextDecoder().decode(r.stdout);
    throw new Error(`${cc.cc} could not compile ${source.pathname}:\n${out}`);
  }
  await Deno.rename(tmp, object);
  return object;
}
