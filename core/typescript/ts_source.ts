/**
 * Which language a plugin's source folder is written in, by the file at its
 * root: `Cargo.toml` is a Rust crate, `plugin.ts` (and no `Cargo.toml`) a
 * TypeScript plugin. `cargo.build`, the build at start and `sausage build`
 * choose the builder by it.
 *
 * @module
 */

/** True when `path` is a file (a link to one counts; a missing path does not). */
function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/** The language of the source folder `dir`, or undefined when it has neither file. */
export function sourceLanguage(dir: string): "rust" | "typescript" | undefined {
  if (isFile(`${dir}/Cargo.toml`)) return "rust";
  if (isFile(`${dir}/plugin.ts`)) return "typescript";
  return undefined;
}

/** True when the source folder `dir` is a TypeScript plugin's: `plugin.ts` and no `Cargo.toml`. */
export function isTsSource(dir: string): boolean {
  return sourceLanguage(dir) === "typescript";
}
