/**
 * Builds a TypeScript plugin (`plugins/<name>/source/plugin.ts` and the files
 * it imports) into a preview-1 module: the TypeScript compiler checks it and
 * makes its `rpc.discover` document from the types (`ts_document.ts`), strips
 * the types down to ES5 (Duktape's language), and the files, the document
 * and the SDK's runtime (`prelude.js`) become one script, linked with the
 * engine (Duktape, `runner.c`) into one `.wasm`. The engine's objects are
 * compiled once per toolchain into the cache (a minute or two); a plugin's
 * build then compiles only its script (a second).
 *
 * @module
 */

import ts from "typescript";
import { sha256 } from "../cache/sha256.ts";
import { cacheDir } from "../paths.ts";
import { checkedProgram, TsBuildError, tsDocument } from "./ts_document.ts";

const HERE = decodeURIComponent(new URL(".", import.meta.url).pathname).replace(/\/$/, "");

/** Where Debian's `duktape-dev` puts Duktape's single-file source. */
export const DUKTAPE_SOURCE = "/usr/share/duktape";

/**
 * The flags of every compile: Debian's clang and wasi-libc (docs/languages.md),
 * and LLVM's Wasm SjLj lowering, which Duktape's errors need (setjmp/longjmp
 * as WebAssembly exceptions; `wasm_sjlj.c` is its runtime).
 */
const CFLAGS = [
  "--target=wasm32-wasi",
  "--sysroot=/usr",
  "-O2",
  "-mllvm",
  "-wasm-enable-sjlj",
  "-mexception-handling",
  `-I${HERE}/include`,
  `-I${DUKTAPE_SOURCE}`,
];

/** Runs clang; throws with its messages. */
async function clang(args: string[], what: string): Promise<void> {
  const out = await new Deno.Command("clang", { args, stdout: "piped", stderr: "piped" }).output()
    .catch((e) => {
      throw new TsBuildError(
        `${what}: clang could not run (${e instanceof Error ? e.message : e}); ` +
          "install clang, lld, wasi-libc, libclang-rt-14-dev-wasm32 (scripts/install-toolchain.sh)",
        "",
      );
    });
  if (!out.success) {
    throw new TsBuildError(`${what}: clang failed`, new TextDecoder().decode(out.stderr));
  }
}

let engine: Promise<string[]> | undefined;

/**
 * The engine's objects (Duktape, the runner, the SjLj runtime), compiled once
 * into the cache under a hash of their sources and flags; resolves with their paths.
 */
export function engineObjects(): Promise<string[]> {
  return engine ??= (async () => {
    const sources = [`${DUKTAPE_SOURCE}/duktape.c`, `${HERE}/runner.c`, `${HERE}/wasm_sjlj.c`];
    let text = CFLAGS.join(" ");
    for (const s of sources) {
      try {
        text += await Deno.readTextFile(s);
      } catch {
        throw new TsBuildError(
          `TypeScript plugins need ${s}: install duktape-dev (scripts/install-toolchain.sh)`,
          "",
        );
      }
    }
    text += await Deno.readTextFile(`${HERE}/include/setjmp.h`);
    const dir = `${cacheDir()}/typescript/engine-${
      (await sha256(new TextEncoder().encode(text))).slice(0, 16)
    }`;
    await Deno.mkdir(dir, { recursive: true });
    const objects = [];
    for (const s of sources) {
      const obj = `${dir}/${s.slice(s.lastIndexOf("/") + 1).replace(/\.c$/, ".o")}`;
      try {
        await Deno.stat(obj);
      } catch {
        const tmp = `${obj}.${crypto.randomUUID()}`;
        await clang([...CFLAGS, "-c", s, "-o", tmp], "the TypeScript engine was not built");
        await Deno.rename(tmp, obj);
      }
      objects.push(obj);
    }
    return objects;
  })().catch((e) => {
    engine = undefined;
    throw e;
  });
}

/** Whether a file is a test module (`*_test.ts`, `*.test.ts`). */
function isTest(rel: string): boolean {
  return rel.endsWith("_test.ts") || rel.endsWith(".test.ts");
}

/**
 * The plugin's TypeScript files, relative to `root` (no `node_modules`, no
 * `build/`, tests too). A link that leads out of the folder is refused: the
 * bundle would carry a file of the machine's.
 */
async function sourceFiles(root: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  const realRoot = await Deno.realPath(root);
  for await (const e of Deno.readDir(`${root}/${prefix}`)) {
    const rel = `${prefix}${e.name}`;
    if (e.name.startsWith(".") || e.name === "node_modules" || e.name === "build") continue;
    if (e.isSymlink) {
      const to = await Deno.realPath(`${root}/${rel}`).catch(() => "");
      if (!to.startsWith(`${realRoot}/`)) {
        throw new TsBuildError(`${rel} is a link out of the plugin's source folder: refused`, "");
      }
      if ((await Deno.stat(to)).isDirectory) continue; // its files are reached where it leads
    }
    if (e.isDirectory) out.push(...await sourceFiles(root, `${rel}/`));
    else if (rel.endsWith(".ts") && !rel.endsWith(".d.ts")) out.push(rel);
  }
  return out.sort();
}

/** The ES5 of one file, as CommonJS. */
function toEs5(text: string, file: string): string {
  const out = ts.transpileModule(text, {
    fileName: file,
    compilerOptions: {
      target: ts.ScriptTarget.ES5,
      module: ts.ModuleKind.CommonJS,
      removeComments: true,
      importHelpers: false,
      esModuleInterop: false,
    },
  });
  return out.outputText;
}

/** The bundle of the plugin at `root`: its modules, its document and the runtime, in one ES5 script. */
export async function tsBundle(root: string, name: string, tests = false): Promise<string> {
  const document = tsDocument(root, name, "0.1.0");
  const files = (await sourceFiles(root)).filter((f) => tests || !isTest(f));
  if (tests) checkedProgram(root, files.map((f) => `${root}/${f}`), name);
  const modules: string[] = [];
  for (const rel of files) {
    const key = rel.replace(/\.ts$/, "").replace(/\.test$/, "_test");
    const code = toEs5(await Deno.readTextFile(`${root}/${rel}`), rel);
    modules.push(
      `${JSON.stringify(key)}: function (exports, require, module) {\n${code}\n}`,
    );
  }
  const prelude = await Deno.readTextFile(`${HERE}/prelude.js`);
  return `var __document = ${JSON.stringify(document)};\nvar __modules = {\n${
    modules.join(",\n")
  }\n};\n${prelude}`;
}

/** The C source that holds a script as bytes. */
function scriptC(script: string): string {
  const bytes = new TextEncoder().encode(script);
  const lines: string[] = [];
  for (let i = 0; i < bytes.length; i += 24) lines.push(bytes.subarray(i, i + 24).join(","));
  return `const char SCRIPT[] = {\n${lines.join(",\n")}${bytes.length ? "," : ""}0};\n` +
    `const unsigned long SCRIPT_LENGTH = ${bytes.length};\n`;
}

/**
 * Builds the TypeScript plugin at `root` (the folder of its `plugin.ts`) as
 * `name` into `out`; with `tests`, its test binary instead: the plugin and
 * its `*_test.ts` modules, which `sausage test` runs as libtest's binaries
 * are run (each exported function of a test module a test, in its own
 * process). Throws a {@linkcode TsBuildError}.
 */
export async function buildTsPlugin(
  root: string,
  name: string,
  out: string,
  tests = false,
): Promise<void> {
  try {
    await Deno.stat(`${root}/plugin.ts`);
  } catch {
    throw new TsBuildError(`${name} has no plugin.ts in ${root}`, "");
  }
  const [script, objects] = await Promise.all([tsBundle(root, name, tests), engineObjects()]);
  const work = await Deno.makeTempDir({ prefix: "sausage-ts-" });
  try {
    await Deno.writeTextFile(`${work}/script.c`, scriptC(script));
    await Deno.mkdir(out.slice(0, out.lastIndexOf("/")), { recursive: true });
    const tmp = `${out}.${crypto.randomUUID()}`;
    await clang(
      [
        ...CFLAGS,
        `${work}/script.c`,
        ...objects,
        "-lm",
        "-Wl,-z,stack-size=1048576",
        "-o",
        tmp,
      ],
      `${name} was not linked`,
    );
    await Deno.rename(tmp, out);
  } finally {
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}
