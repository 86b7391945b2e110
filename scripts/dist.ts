/**
 * `deno task dist`: writes `dist/sausage`, one executable file for linux-x64.
 *
 * - Where `deno compile` can get a runtime (`denort`) matching the pinned
 *   Deno (`DENORT_BIN`, or a machine that can download it), the file is what
 *   `deno compile` makes (`--form=compiled`; not tested here, where neither
 *   exists: see DECISIONS.md).
 * - Otherwise (`--form=packed`, and the fallback of `--form=auto`) it is a
 *   shell header (`scripts/dist_header.sh`) followed by a gzip'd tar of the
 *   pinned Deno binary, the program's files, the npm packages it loads, the
 *   SDK, the example world and the toolchain install script, with a manifest
 *   of every file's SHA-256. Its first start unpacks it into
 *   `$XDG_CACHE_HOME/sausage/dist/<archive sha256>/` and every start runs the
 *   `sausage` launcher there. gzip because tar and gzip are on every Debian
 *   (xz and zstd are not).
 *
 * Usage: `deno run --allow-all scripts/dist.ts [--form=auto|packed|compiled] [--out=<file>]`
 *
 * @module
 */

import { npmFolders, programFiles } from "./dist_files.ts";
import { sha256 } from "../core/cache/sha256.ts";

const ROOT = decodeURIComponent(new URL("..", import.meta.url).pathname).replace(/\/$/, "");
const HEADER = new URL("./dist_header.sh", import.meta.url);
/** The width of the archive's offset in the header, so that writing it does not move it. */
const OFFSET_WIDTH = 10;

/** Runs a command; throws with its stderr when it fails. */
async function run(cmd: string, args: string[], opts: Deno.CommandOptions = {}): Promise<void> {
  const out = await new Deno.Command(cmd, { args, stderr: "piped", ...opts }).output();
  if (!out.success) {
    throw new Error(`${cmd} ${args.join(" ")} failed:\n${new TextDecoder().decode(out.stderr)}`);
  }
}

/** Every file and link under `rel` (relative to ROOT), recursively, sorted. */
async function walk(rel: string, out: string[]): Promise<void> {
  const entries = await Array.fromAsync(Deno.readDir(`${ROOT}/${rel}`));
  entries.sort((a, b) => a.name < b.name ? -1 : 1);
  for (const e of entries) {
    const path = `${rel}/${e.name}`;
    if (e.isDirectory) await walk(path, out);
    else out.push(path);
  }
}

/** `sha256sum` lines of the regular files among `files` (relative to ROOT). */
async function manifest(files: string[]): Promise<string> {
  const regular: string[] = [];
  for (const f of files) if ((await Deno.lstat(`${ROOT}/${f}`)).isFile) regular.push(f);
  const child = new Deno.Command("xargs", {
    args: ["-0", "sha256sum", "--"],
    cwd: ROOT,
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(regular.join("\0")));
  await writer.close();
  const out = await child.output();
  if (!out.success) throw new Error("sha256sum of the files failed");
  return new TextDecoder().decode(out.stdout);
}

/** The packed form: header + gzip'd tar. Resolves with the archive's SHA-256. */
async function packed(out: string): Promise<string> {
  const files = await programFiles(ROOT);
  for (const folder of await npmFolders(ROOT)) await walk(folder, files);
  // The pinned Deno: the binary, and the link the launcher runs.
  files.push("node_modules/deno/deno", "node_modules/.bin/deno");
  const stage = await Deno.makeTempDir({ prefix: "sausage-dist-" });
  try {
    await Deno.mkdir(`${stage}/.dist`);
    await Deno.writeTextFile(`${stage}/.dist/MANIFEST`, await manifest(files));
    await Deno.writeTextFile(`${stage}/list`, files.join("\0"));
    const archive = `${stage}/payload.tar.gz`;
    // Same files, same archive: fixed owners and times, no gzip name or time.
    await run("bash", [
      "-c",
      `set -o pipefail; tar -c --null --no-recursion --owner=0 --group=0 --numeric-owner \
        --mtime=@1700000000 -C "$1" -T "$2/list" -C "$2" .dist/MANIFEST | gzip -n -6 >"$2/payload.tar.gz"`,
      "pack",
      ROOT,
      stage,
    ]);
    const bytes = await Deno.readFile(archive);
    const hash = await sha256(bytes);
    const template = await Deno.readTextFile(HEADER);
    const withHash = template.replace("@HASH@", hash);
    const length = new TextEncoder().encode(withHash).length - "@OFFSET@".length + OFFSET_WIDTH;
    const header = withHash.replace("@OFFSET@", String(length).padStart(OFFSET_WIDTH, "0"));
    const headerBytes = new TextEncoder().encode(header);
    if (headerBytes.length !== length) throw new Error("the header's length moved");
    const tmp = `${out}.tmp-${crypto.randomUUID()}`;
    const file = await Deno.open(tmp, { write: true, createNew: true, mode: 0o755 });
    try {
      await file.write(headerBytes);
      let done = 0;
      while (done < bytes.length) done += await file.write(bytes.subarray(done));
    } finally {
      file.close();
    }
    await Deno.chmod(tmp, 0o755);
    await Deno.rename(tmp, out);
    return hash;
  } finally {
    await Deno.remove(stage, { recursive: true });
  }
}

/** The compiled form: `deno compile` with the files the commands read at run time. */
async function compiled(out: string): Promise<void> {
  const include = [
    // Loaded by a specifier `deno compile` cannot see (`core/load_later.ts`).
    "sandbox/main.ts",
    "cli",
    "core/control/world_server.ts",
    "core/journal/journal_worker.ts",
    "sdk",
    "examples/world",
    "scripts/install-toolchain.sh",
    "PROTOCOL.md",
    "core/cargo/pthread_stubs.c",
    "core/cargo/cabi_realloc.c",
  ].flatMap((p) => ["--include", p]);
  await run(`${ROOT}/node_modules/.bin/deno`, [
    "compile",
    "--quiet",
    "--allow-all",
    "--config",
    "deno.json",
    ...include,
    "--target",
    "x86_64-unknown-linux-gnu",
    "--output",
    out,
    "main.ts",
  ], { cwd: ROOT });
}

if (import.meta.main) {
  const arg = (name: string) =>
    Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const form = arg("form") ?? "auto";
  const out = arg("out") ?? `${ROOT}/dist/sausage`;
  if (!["auto", "packed", "compiled"].includes(form)) {
    console.error("usage: scripts/dist.ts [--form=auto|packed|compiled] [--out=<file>]");
    Deno.exit(2);
  }
  await Deno.mkdir(out.slice(0, out.lastIndexOf("/")) || ".", { recursive: true });
  let made = "";
  if (form !== "packed") {
    try {
      await compiled(out);
      made = "compiled with deno compile";
    } catch (e) {
      if (form === "compiled") throw e;
      // A note, not deno's red `error:` line: the packed form is a success.
      // deno-lint-ignore no-control-regex -- ANSI colour codes
      const why = String((e as Error).message).replaceAll(/\x1b\[[0-9;]*m/g, "").split("\n")
        .find((l) => /error/i.test(l))?.replace(/^\s*error:\s*/i, "").trim();
      console.error(
        `dist: deno compile cannot make the file here (no denort for Deno ${Deno.version.deno}: ` +
          `set DENORT_BIN to one), so the packed form is made${why ? ` (deno said: ${why})` : ""}`,
      );
    }
  }
  if (!made) made = `packed, archive sha256 ${await packed(out)}`;
  const size = (await Deno.stat(out)).size;
  console.log(`dist: wrote ${out} (${(size / 2 ** 20).toFixed(1)} MiB, ${made})`);
}
