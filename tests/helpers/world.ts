/**
 * Temporary worlds for tests: a folder with the given plugins (components
 * built from Rust source by the tests) and optional config files; and
 * copies of plugin sources to put in them.
 *
 * @module
 */

/** What a test world holds. */
export interface WorldSpec {
  /** Plugin name → path of a built component to copy in as `plugin.wasm`. */
  plugins?: Record<string, string>;
  /** Extra files by world-relative path (e.g. `config/boot.json`). */
  files?: Record<string, string>;
}

/** Creates a temporary world; returns its path. */
export async function makeWorld(spec: WorldSpec = {}): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "sausage-world-" });
  for (const [name, wasm] of Object.entries(spec.plugins ?? {})) {
    await Deno.mkdir(`${root}/plugins/${name}`, { recursive: true });
    await Deno.copyFile(wasm, `${root}/plugins/${name}/plugin.wasm`);
  }
  for (const [path, text] of Object.entries(spec.files ?? {})) {
    const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "";
    if (dir) await Deno.mkdir(`${root}/${dir}`, { recursive: true });
    await Deno.writeTextFile(`${root}/${path}`, text);
  }
  return root;
}

/** Copies a crate's folder (a plugin's source) to `to`, less `target/` and dot entries. */
export async function copySource(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    if (e.name === "target" || e.name.startsWith(".")) continue;
    if (e.isDirectory) await copySource(`${from}/${e.name}`, `${to}/${e.name}`);
    else await Deno.copyFile(`${from}/${e.name}`, `${to}/${e.name}`);
  }
}
