/**
 * `sausage new <world> <plugin> --lang <lang>`: plugins in other languages
 * than Rust (docs/languages.md). Each language's template is a folder of
 * `cli/templates/<lang>/`, copied to `plugins/<plugin>/source/` with
 * `__PLUGIN__` replaced by the plugin's name. C and AssemblyScript build
 * with their own toolchains into `source/build/<plugin>.wasm`, which
 * `core.activate` installs; TypeScript (`plugin.ts`, and the SDK's
 * `sausage.d.ts` for editors) builds with `sausage build` (`cargo.build`, `core/typescript/ts_build_method.ts`).
 *
 * @module
 */

import { SDK_DECLARATIONS } from "../core/typescript/ts_document.ts";
import { UsageError } from "./args.ts";

/** The languages `--lang` takes; `rust` is the SDK's cargo project (`scaffold.ts`). */
export const LANGS = ["rust", "ts", "c", "assemblyscript"] as const;

/** A language of `--lang`. */
export type Lang = (typeof LANGS)[number];

const TEMPLATES = decodeURIComponent(new URL("./templates", import.meta.url).pathname);

/** The language `--lang` names (`rust` without it); a usage error for another. */
export function langOf(flag: string | true | undefined): Lang {
  if (flag === undefined) return "rust";
  const asked = flag === true ? "" : flag.toLowerCase();
  const lang = asked === "as"
    ? "assemblyscript"
    : asked === "rs"
    ? "rust"
    : asked === "typescript"
    ? "ts"
    : asked;
  if (!(LANGS as readonly string[]).includes(lang)) {
    throw new UsageError(`--lang takes ${LANGS.join(", ")}; not "${flag}"`);
  }
  return lang as Lang;
}

/** The files of a template folder, relative to it. */
async function filesOf(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(`${dir}/${prefix}`)) {
    const rel = `${prefix}${e.name}`;
    if (e.isDirectory) out.push(...await filesOf(dir, `${rel}/`));
    else out.push(rel);
  }
  return out.sort();
}

/**
 * Writes the template of `lang` (not `rust`) for `plugin` into `source`
 * (never over a file), keeping each file's mode (`build.sh` stays executable).
 */
export async function writeTemplate(lang: Exclude<Lang, "rust">, plugin: string, source: string) {
  const dir = `${TEMPLATES}/${lang}`;
  for (const rel of await filesOf(dir)) {
    const text = (await Deno.readTextFile(`${dir}/${rel}`)).replaceAll("__PLUGIN__", plugin);
    const path = `${source}/${rel}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    const mode = (await Deno.stat(`${dir}/${rel}`)).mode ?? 0o644;
    await Deno.writeTextFile(path, text, { createNew: true, mode });
    await Deno.chmod(path, mode & 0o777);
  }
  // The SDK's declarations, for editors (the build uses the host's own copy).
  if (lang === "ts") {
    await Deno.copyFile(SDK_DECLARATIONS, `${source}/sausage.d.ts`);
  }
}

/** What `new` prints after making a plugin of `lang` (not `rust`): how to build and activate it. */
export function templateNext(
  lang: Exclude<Lang, "rust">,
  world: string,
  plugin: string,
  me: string,
): string {
  const source = `${world}/plugins/${plugin}/source`;
  if (lang === "ts") {
    return `made the TypeScript plugin ${plugin} in ${source}/ (plugin.ts, plugin_test.ts; docs/languages.md). Next:
  ${me} build ${world} ${plugin}     # type-check, test, build and activate it
  ${me} call ${world} ${plugin}.greet '{"name": "Ada"}'
  ${me} methods ${world} ${plugin}   # its document, from its types and doc comments`;
  }
  const build = lang === "c"
    ? `  ${source}/build.sh              # clang + wasi-libc: build/${plugin}.wasm`
    : `  cd ${source} && npm install && npm run build   # asc: build/${plugin}.wasm`;
  return `made the ${lang} plugin ${plugin} in ${source}/ (docs/languages.md). Next:
${build}
  ${me} check ${source}/build/${plugin}.wasm
  ${me} call ${world} core.activate '{"plugin": "${plugin}", "wasm": "/plugins/${plugin}/source/build/${plugin}.wasm"}'
  ${me} call ${world} ${plugin}.greet '{"name": "Ada"}'`;
}
