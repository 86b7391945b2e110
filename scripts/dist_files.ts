/**
 * What `dist/sausage` carries (`scripts/dist.ts`): the program's files out of
 * git (no tests, no benchmarks), and the npm packages it loads at run time
 * out of `package-lock.json`, with the pinned Deno binary.
 *
 * @module
 */

/** Top-level files and folders of the checkout that the program needs at run time. */
const PROGRAM = [
  "sausage",
  "main.ts",
  "deno.json",
  "package.json",
  "PROTOCOL.md",
  "cli/",
  "core/",
  "mcp/",
  "rpc/",
  "sandbox/",
  "vfs/",
  "wasm/",
  "worker/",
  "sdk/",
  "examples/world/",
  "scripts/install-toolchain.sh",
];

/** Dependencies of `package.json` that are not loaded at run time. */
const NOT_AT_RUN_TIME = new Set([
  "deno",
  "@types/node",
  // The template of `sausage new --lang assemblyscript` installs its own (tests build it).
  "assemblyscript",
  "@assemblyscript/wasi-shim",
]);

/**
 * Packages in jco's tree that the host never loads: `componentize` (JS to a
 * component: componentize-js, wizer, weval) and binaryen (only for jco's
 * `opt` and `--js`, which the host does not use). They are 160 MB of 250.
 */
const UNUSED = new Set([
  "@bytecodealliance/componentize-js",
  "@bytecodealliance/wizer",
  "@bytecodealliance/weval",
  "binaryen",
]);

/**
 * True for a file of the program that the file does not carry: tests and
 * test data, but not the templates' tests (`sausage new --lang ts` writes
 * `cli/templates/ts/plugin_test.ts` into the new plugin).
 */
function leftOut(f: string): boolean {
  if (f.startsWith("cli/templates/")) return false;
  return f.endsWith("_test.ts") || f.includes("/testdata/") || f.startsWith("sdk/tests/");
}

/**
 * The program's files (relative to `root`): those git tracks, or, outside a
 * git checkout, those on disk without build output; tests and test data left out.
 */
export async function programFiles(root: string): Promise<string[]> {
  const out = await new Deno.Command("git", {
    args: ["ls-files", "-z", "--", ...PROGRAM],
    cwd: root,
    stdout: "piped",
    stderr: "null",
  }).output().catch(() => undefined);
  if (out?.success) {
    return new TextDecoder().decode(out.stdout).split("\0").filter((f) => f && !leftOut(f));
  }
  const files: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    const info = await Deno.lstat(`${root}/${rel}`);
    if (info.isFile) {
      if (!leftOut(rel) && !rel.endsWith(".wasm") && !rel.endsWith("/Cargo.lock")) files.push(rel);
      return;
    }
    if (!info.isDirectory || /(^|\/)(target|node_modules|\.cargo)$/.test(rel)) return;
    if (/^examples\/world\/(state\/(?!www)|plugins\/cargo)/.test(rel)) return;
    for await (const e of Deno.readDir(`${root}/${rel}`)) await walk(`${rel}/${e.name}`);
  };
  for (const p of PROGRAM) await walk(p.replace(/\/$/, ""));
  return files.sort();
}

interface LockPackage {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  os?: string[];
  cpu?: string[];
}

/**
 * The folders under `node_modules/` of the run-time npm packages and their
 * dependencies (resolved as Node does: nearest `node_modules` upward), for
 * linux-x64, out of `package-lock.json`.
 */
export async function npmFolders(root: string): Promise<string[]> {
  const lock = JSON.parse(await Deno.readTextFile(`${root}/package-lock.json`));
  const packages: Record<string, LockPackage> = lock.packages;
  const found = new Set<string>();
  const visit = (from: string, name: string) => {
    if (UNUSED.has(name) || name.startsWith("@bytecodealliance/wizer-")) return;
    let base = from;
    for (;;) {
      const path = `${base ? `${base}/` : ""}node_modules/${name}`;
      const pkg = packages[path];
      if (pkg) {
        if (found.has(path)) return;
        if (pkg.os && !pkg.os.includes("linux")) return;
        if (pkg.cpu && !pkg.cpu.includes("x64")) return;
        found.add(path);
        for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) {
          visit(path, dep);
        }
        return;
      }
      if (!base) return; // not installed (an optional dependency of another platform)
      const i = base.lastIndexOf("/node_modules/");
      base = i < 0 ? "" : base.slice(0, i);
    }
  };
  for (const dep of Object.keys(packages[""].dependencies ?? {})) {
    if (!NOT_AT_RUN_TIME.has(dep)) visit("", dep);
  }
  // A folder inside another is carried with it.
  return [...found].sort().filter((p, i, all) =>
    !all.slice(0, i).some((q) => p.startsWith(`${q}/`))
  );
}
