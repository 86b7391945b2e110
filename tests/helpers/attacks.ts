/**
 * The attack modules of `tests/plugins/attacks/` (WebAssembly text, one
 * attack each) as plugin files: compiled with wabt's `wat2wasm` (installed by
 * `scripts/install-toolchain.sh --with-test-tools`) and, when the tests run
 * on jco's path (`SAUSAGE_ENGINE=jco`), made components with the preview-1
 * command adapter the host's builds use, since jco's path runs components
 * only. Kept in the cache folder by the hash of the text (and the engine).
 *
 * @module
 */

import { sha256 } from "../../core/cache/sha256.ts";
import { adaptCommand } from "../../core/cargo/adapt_command.ts";
import { cacheDir } from "../../core/paths.ts";

const ATTACKS_DIR = decodeURIComponent(new URL("../plugins/attacks", import.meta.url).pathname);

/** True when the tests run on jco's path. */
export function onJco(): boolean {
  return Deno.env.get("SAUSAGE_ENGINE") === "jco";
}

/** Compiles `tests/plugins/attacks/<name>.wat` (made a component on jco's path); resolves with its path. */
export async function attackModule(name: string): Promise<string> {
  const text = await Deno.readFile(`${ATTACKS_DIR}/${name}.wat`);
  const jco = onJco();
  const key = (await sha256(text)).slice(0, 16);
  const dir = `${cacheDir()}/test-attacks`;
  const out = `${dir}/${name}-${key}${jco ? "-component" : ""}.wasm`;
  try {
    await Deno.stat(out);
    return out;
  } catch { /* not made yet */ }
  await Deno.mkdir(dir, { recursive: true });
  const core = `${dir}/${name}-${key}.${crypto.randomUUID()}.core.wasm`;
  let result: Deno.CommandOutput;
  try {
    result = await new Deno.Command("wat2wasm", {
      args: [`${ATTACKS_DIR}/${name}.wat`, "-o", core],
      stderr: "piped",
    }).output();
  } catch (e) {
    throw new Error(
      `cannot run wat2wasm (${e}): install wabt, e.g. scripts/install-toolchain.sh --with-test-tools`,
    );
  }
  if (!result.success) {
    throw new Error(`wat2wasm failed on ${name}.wat: ${new TextDecoder().decode(result.stderr)}`);
  }
  let bytes: Uint8Array = await Deno.readFile(core);
  await Deno.remove(core);
  if (jco) bytes = await adaptCommand(bytes);
  const tmp = `${out}.tmp-${crypto.randomUUID()}`;
  await Deno.writeFile(tmp, bytes);
  await Deno.rename(tmp, out);
  return out;
}

/** Every attack module by name. */
export async function attackModules(names: string[]): Promise<Record<string, string>> {
  return Object.fromEntries(await Promise.all(names.map(async (n) => [n, await attackModule(n)])));
}
