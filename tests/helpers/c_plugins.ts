/**
 * Test plugins in plain C (`tests/plugins/c/<name>.c`), compiled by clang
 * with Debian's wasi-libc into preview-1 modules, as docs/languages.md says,
 * and cached by the hash of the source and the flags.
 *
 * @module
 */

import { sha256 } from "../../core/cache/sha256.ts";
import { cacheDir } from "../../core/paths.ts";

const C_DIR = decodeURIComponent(new URL("../plugins/c", import.meta.url).pathname);

/**
 * The flags of docs/languages.md for Debian's clang 14 and wasi-libc:
 * wasi-libc's headers and libraries are under `/usr` (`/usr/include/wasm32-wasi`,
 * `/usr/lib/wasm32-wasi`); compiler-rt's builtins come from
 * `libclang-rt-14-dev-wasm32` (scripts/install-toolchain.sh installs it).
 */
export const C_FLAGS = ["--target=wasm32-wasi", "--sysroot=/usr", "-O2"];

/**
 * Compiles `tests/plugins/c/<name>.c` with `defines` (`-D` names) into a
 * preview-1 module; resolves with its path. Throws with clang's messages.
 */
export async function builtCPlugin(name: string, defines: string[] = []): Promise<string> {
  const source = `${C_DIR}/${name}.c`;
  const args = [...C_FLAGS, ...defines.map((d) => `-D${d}`)];
  const key = await sha256(
    new TextEncoder().encode(args.join(" ") + "\n" + await Deno.readTextFile(source)),
  );
  const out = `${cacheDir()}/test-plugins/c-${name}-${key.slice(0, 16)}.wasm`;
  try {
    await Deno.stat(out);
    return out;
  } catch { /* compile it */ }
  await Deno.mkdir(`${cacheDir()}/test-plugins`, { recursive: true });
  const tmp = `${out}.${crypto.randomUUID()}`;
  const r = await new Deno.Command("clang", {
    args: [...args, source, "-o", tmp],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!r.success) {
    throw new Error(`clang did not compile ${source}:\n${new TextDecoder().decode(r.stderr)}`);
  }
  await Deno.rename(tmp, out);
  return out;
}
