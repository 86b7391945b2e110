/**
 * The example world that `sausage new <world> --example` copies: this
 * program's `examples/world/` (carried by the one-file form too), as the
 * repository has it: sources, config and `state/www/`, without what running
 * it made (built plugins, other state, the SDK copy, `.cargo/`, cargo's
 * `target/` and lockfiles).
 *
 * @module
 */

/** The example world's folder. */
export const EXAMPLE_WORLD = decodeURIComponent(
  new URL("../examples/world", import.meta.url).pathname,
);

/** True for a path (relative to the example world) that running the world made. */
function madeByRunning(rel: string): boolean {
  const parts = rel.split("/");
  if (parts[0] === ".cargo") return true;
  if (parts[0] === "state") return parts.length > 1 && parts[1] !== "www";
  if (parts[0] === "plugins") {
    if (parts[1] === "cargo") return true;
    if (parts.length === 3 && parts[2] !== "source") return true; // plugin.wasm and the like
  }
  const name = parts[parts.length - 1];
  return name === "target" || name === "Cargo.lock" || name.endsWith(".wasm");
}

/**
 * Copies the example world into `dest` (which must not hold files yet).
 * Resolves with the paths copied, relative to `dest`.
 */
export async function copyExampleWorld(dest: string, from = EXAMPLE_WORLD): Promise<string[]> {
  const copied: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    for await (const e of Deno.readDir(rel ? `${from}/${rel}` : from)) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (madeByRunning(path)) continue;
      if (e.isDirectory) {
        await Deno.mkdir(`${dest}/${path}`, { recursive: true });
        await walk(path);
      } else if (e.isFile) {
        await Deno.copyFile(`${from}/${path}`, `${dest}/${path}`);
        copied.push(path);
      }
    }
  };
  await Deno.mkdir(dest, { recursive: true });
  await walk("");
  return copied.sort();
}
