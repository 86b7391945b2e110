/**
 * Containment of builds and of the host's own file operations (issue 24,
 * items 1-3), each attack performed as the audit did it, with real plugins,
 * real builds through the bubblewrap sandbox, and a real guest planting the
 * links:
 *
 * 1. a guest-written build script looks for the host's secrets (canary
 *    variables, `/etc/shadow`);
 * 2. a build script of one world tries to overwrite another world's build
 *    artifacts (and the shared target folder of old);
 * 3. a guest plants a relative link deep in the world, then renames its
 *    folder shallower so that the link points outside, where host code
 *    (the console history, the SDK copy, the build's binds and folders,
 *    `.cargo/config.toml`, config reads) used to follow it; a plugin
 *    `source` that is a link to `../..`.
 */

import { openTestHost } from "../core/control/world_server.ts";
import assert from "node:assert/strict";
import { TestHost } from "./helpers/host.ts";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { cacheDir } from "../core/paths.ts";
import { sha256 } from "../core/cache/sha256.ts";
import { History } from "../cli/console/history.ts";
import { writeCargoConfig } from "../core/cargo/author_config.ts";
import { World } from "../core/world/world.ts";
import { bootCalls } from "../core/world/boot.ts";
import { buildPlugin } from "../core/cargo/cargo_build.ts";
import { detectToolchain } from "../core/cargo/toolchain.ts";
import { buildFolders } from "../core/cargo/build_folders.ts";

const hostile = await builtTestPlugin("hostile");
const fsprobe = await builtTestPlugin("fsprobe");
const opts = { sanitizeOps: false, sanitizeResources: false };

const CARGO_TOML = `[package]
name = "pwn"
version = "0.1.0"
edition = "2021"
build = "build.rs"
`;

/** The build error of a `hostile.build_pwn` call. */
type BuildAnswer = {
  result?: { wasm: string };
  error?: { code: number; message: string; data: { output: string; step?: string } };
};

/** Runs fsprobe's ops as a guest of `h`; resolves with one result per op. */
function guestOps(h: TestHost, ops: Record<string, unknown>[]): Promise<unknown[]> {
  return h.result<unknown[]>("fsprobe.run", { ops });
}

/** The names in a folder, sorted. */
function names(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((e) => e.name).sort();
}

/** A folder outside every world with one file, and a check that nothing changed there. */
async function outsideFolder(): Promise<{ path: string; untouched: () => void }> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix: "sausage-outside-" }));
  await Deno.writeTextFile(`${path}/bashrc`, "original\n");
  await Deno.mkdir(`${path}/sdk`);
  await Deno.writeTextFile(`${path}/sdk/keep.txt`, "keep\n");
  return {
    path,
    untouched: () => {
      assert.deepEqual(names(path), ["bashrc", "sdk"], "nothing was added outside");
      assert.equal(Deno.readTextFileSync(`${path}/bashrc`), "original\n");
      assert.deepEqual(names(`${path}/sdk`), ["keep.txt"]);
      assert.equal(Deno.readTextFileSync(`${path}/sdk/keep.txt`), "keep\n");
    },
  };
}

/**
 * The guest's ops that leave `<final>/<name>` a link to `target` (an absolute
 * path outside the world), made the way the audit did: the link is made
 * relative, deep in the world, where it resolves inside; then the folder
 * that holds it is renamed to `final` (world-relative, e.g.
 * `state/console`), shallower, so the same `..`s climb out of the world.
 * `aside` lists folders to move out of the way first (renamed to `<x>.old`).
 */
function plantLink(
  root: string,
  final: string,
  name: string,
  target: string,
  aside: string[] = [],
): Record<string, unknown>[] {
  // From <root>/<final>, `ups` climbs to "/".
  const ups = final.split("/").length + root.split("/").filter(Boolean).length;
  // A folder that deep in the world: from it, the same climb ends at the world's root.
  const deep = ["deep", ...Array.from({ length: ups - 1 }, (_, i) => `d${i}`)];
  const link = "../".repeat(ups) + target.replace(/^\//, "");
  return [
    { op: "mkdir_all", path: `/${deep.join("/")}` },
    { op: "symlink", path: `/${deep.join("/")}/${name}`, target: link },
    ...aside.map((a) => ({ op: "rename", from: `/${a}`, to: `/${a}.old` })),
    { op: "rename", from: `/${deep.join("/")}`, to: `/${final}` },
    { op: "lstat", path: `/${final}/${name}` },
  ];
}

/** Asserts that the guest's last op saw a link (the plant worked as the audit's did). */
function planted(results: unknown[], at: string): void {
  const last = results.at(-1) as { symlink?: boolean; error?: string };
  assert.equal(last.symlink, true, `the guest left a link at ${at}: ${JSON.stringify(results)}`);
}

// ---------------------------------------------------------------------------
// 1. A build sees only what it needs.

const CANARIES: Record<string, string> = {
  GITHUB_TOKEN: "ghp_canary_7f3a9d",
  AWS_SECRET_ACCESS_KEY: "aws_canary_51c2e8",
  OPENAI_API_KEY: "sk-canary-90b4f1",
  DATABASE_URL: "postgres://canary:pw@db/prod",
};

/** A build script that writes every variable it sees into the world, reads /etc, and fails with a report. */
const ENV_SCRIPT = `fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap();
    let vars: Vec<String> = std::env::vars().map(|(k, v)| format!("{k}={v}")).collect();
    std::fs::write(format!("{dir}/env.txt"), vars.join("\\n")).unwrap();
    std::fs::write(format!("{}/env.txt", std::env::var("OUT_DIR").unwrap()), vars.join("\\n")).unwrap();
    let shadow = match std::fs::read_to_string("/etc/shadow") {
        Ok(t) => format!("READ({})", t.len()),
        Err(e) => format!("denied({e})"),
    };
    let etc = std::fs::read_dir("/etc").map(|d| d.map(|e| e.unwrap().file_name().into_string().unwrap()).collect::<Vec<_>>().join(",")).unwrap_or_default();
    panic!("env report: shadow={shadow} etc={etc} vars={}", vars.join(";"));
}
`;

Deno.test({
  name:
    "a guest's build script sees none of the host's secrets: no canary variable, no /etc/shadow (host runs as root)",
  ...opts,
}, async () => {
  for (const [k, v] of Object.entries(CANARIES)) Deno.env.set(k, v);
  const h = await TestHost.start({ plugins: { hostile } });
  try {
    const r = await h.call("hostile.build_pwn", {
      plugin: "pwn",
      files: { "Cargo.toml": CARGO_TOML, "src/main.rs": "fn main() {}\n", "build.rs": ENV_SCRIPT },
    });
    const answer = r.result as BuildAnswer;
    assert.ok(answer.error, "the build failed (its script panics with the report)");
    const output = answer.error.data.output;
    const report = output.match(/env report: (.*)/)?.[1];
    assert.ok(report, `the build script ran and reported:\n${output}`);
    const written = Deno.readTextFileSync(`${h.root}/plugins/pwn/source/env.txt`);
    for (const [k, v] of Object.entries(CANARIES)) {
      for (const text of [report, written, output]) {
        assert.ok(!text.includes(v), `${k}'s value did not reach the build`);
        assert.ok(!new RegExp(`(^|[;\\n])${k}=`).test(text), `${k} is not set in the build`);
      }
    }
    assert.match(written, /^PATH=\/usr\/local\/bin:\/usr\/bin:\/bin$/m, "PATH is ours");
    assert.match(written, /^HOME=\/tmp\/home$/m);
    assert.equal(Deno.uid(), 0, "this machine runs the host as root: the attack of the issue");
    assert.match(report, /shadow=denied\(/, report);
    const etc = report.match(/etc=(\S*)/)![1].split(",");
    assert.ok(!etc.includes("shadow") && !etc.includes("gshadow"), `minimal /etc: ${etc}`);
    assert.ok(etc.includes("passwd") && etc.includes("ld.so.cache"), `minimal /etc: ${etc}`);
    assert.ok(!etc.includes("ssh") && !etc.includes("hostname"), `only what builds need: ${etc}`);
  } finally {
    for (const k of Object.keys(CANARIES)) Deno.env.delete(k);
    await h.close();
  }
});

// ---------------------------------------------------------------------------
// 2. Builds cannot touch each other.

const VICTIM_TOML = `[package]
name = "victim"
version = "0.1.0"
edition = "2021"
`;

const VICTIM_MAIN = `fn main() { println!("victim of world B"); }\n`;

/** A build script of world A that tries to write into B's build folders and the old shared one. */
function crossScript(bTarget: string, shared: string, builds: string): string {
  return `fn try_write(path: &str) -> String {
    match std::fs::write(path, "A WAS HERE") {
        Ok(_) => "ALLOWED".to_string(),
        Err(e) => format!("denied({e})"),
    }
}
fn main() {
    let b_release = try_write("${bTarget}/wasm32-wasip1/release/victim.wasm");
    let b_new = try_write("${bTarget}/planted.txt");
    let shared = try_write("${shared}/planted.txt");
    let seen = std::fs::read_dir("${builds}").map(|d| d.map(|e| e.unwrap().file_name().into_string().unwrap()).collect::<Vec<_>>().join(",")).unwrap_or_else(|e| format!("denied({e})"));
    panic!("cross report: b_release={b_release} b_new={b_new} shared={shared} builds={seen}");
}
`;
}

Deno.test({
  name:
    "builds cannot touch each other: world A's build script cannot see or write world B's build folders, and B's rebuild gives B's own component",
  ...opts,
}, async () => {
  const a = await TestHost.start({ plugins: { hostile } });
  const b = await TestHost.start({ plugins: { hostile } });
  try {
    const files = { "Cargo.toml": VICTIM_TOML, "src/main.rs": VICTIM_MAIN };
    const first = (await b.result<BuildAnswer>("hostile.build_pwn", { plugin: "victim", files }))
      .result;
    assert.ok(first, "B's plugin builds");
    const firstBytes = Deno.readFileSync(`${b.root}${first.wasm}`);
    const tc = await detectToolchain();
    const bTarget = (await buildFolders(tc, b.root)).target;
    const aTarget = (await buildFolders(tc, a.root)).target;
    assert.notEqual(aTarget, bTarget, "each world has its own target folder");
    const bArtifact = `${bTarget}/wasm32-wasip1/release/victim.wasm`;
    const before = await sha256(Deno.readFileSync(bArtifact));

    const r = await a.result<BuildAnswer>("hostile.build_pwn", {
      plugin: "pwn",
      files: {
        "Cargo.toml": CARGO_TOML,
        "src/main.rs": "fn main() {}\n",
        "build.rs": crossScript(bTarget, tc.targetDir, `${cacheDir()}/builds/${tc.kind}`),
      },
    });
    const report = r.error?.data.output.match(/cross report: (.*)/)?.[1];
    assert.ok(report, `A's build script ran and reported: ${JSON.stringify(r)}`);
    assert.doesNotMatch(report, /ALLOWED/, report);
    for (const what of ["b_release", "b_new", "shared"]) {
      assert.match(report, new RegExp(`${what}=denied\\(`), report);
    }
    // A sees its own build folder only (or none): never B's.
    const bKey = bTarget.split("/").at(-2)!;
    assert.ok(!report.includes(bKey), `B's folder is not visible to A: ${report}`);
    assert.equal(await sha256(Deno.readFileSync(bArtifact)), before, "B's artifact is B's");
    await assert.rejects(Deno.stat(`${bTarget}/planted.txt`));
    await assert.rejects(Deno.stat(`${tc.targetDir}/planted.txt`));

    // B's owner rebuilds the unchanged plugin: B's own component, byte for byte.
    const again = (await b.result<BuildAnswer>("hostile.build_pwn", { plugin: "victim", files }))
      .result;
    assert.ok(again);
    assert.deepEqual(Deno.readFileSync(`${b.root}${again.wasm}`), firstBytes);
  } finally {
    await a.close();
    await b.close();
  }
});

// ---------------------------------------------------------------------------
// 3. Host code never follows links a guest plants.

Deno.test({
  name: "the console history never writes through a link a guest planted deep and moved shallower",
  ...opts,
}, async () => {
  const out = await outsideFolder();
  const h = await TestHost.start({ plugins: { fsprobe } });
  try {
    const ops = plantLink(h.root, "state/console", "history.tmp", `${out.path}/bashrc`);
    planted(await guestOps(h, ops), "state/console/history.tmp");
    assert.equal(Deno.realPathSync(`${h.root}/state/console/history.tmp`), `${out.path}/bashrc`);
    const history = new History(h.root); // what the console does at each input
    assert.equal(history.add("echo the guest's line"), null);
    out.untouched();
    assert.equal(
      Deno.readTextFileSync(`${h.root}/state/console/history`),
      "echo the guest's line\n",
    );
    // The same with the history file itself a link out.
    Deno.removeSync(`${h.root}/state/console`, { recursive: true });
    const again = plantLink(h.root, "state/console", "history", `${out.path}/bashrc`);
    planted(await guestOps(h, again), "state/console/history");
    assert.deepEqual(new History(h.root).entries(), [], "a history out of the world is not read");
    assert.equal(new History(h.root).add("echo again"), null);
    out.untouched();
  } finally {
    await h.close();
    await Deno.remove(out.path, { recursive: true });
  }
});

Deno.test({
  name:
    "the SDK copy never deletes or replaces an outside folder through a link a guest planted (plugins/ swapped)",
  ...opts,
}, async () => {
  const out = await outsideFolder();
  let h = await TestHost.start({ plugins: { fsprobe } });
  const root = h.root;
  try {
    assert.ok(Deno.statSync(`${root}/plugins/cargo/sdk/sausage-plugin/Cargo.toml`).isFile);
    // plugins/ replaced by a folder whose `cargo` is a link that now leads out.
    const ops = plantLink(root, "plugins", "cargo", out.path, ["plugins"]);
    planted(await guestOps(h, ops), "plugins/cargo");
    assert.equal(Deno.realPathSync(`${root}/plugins/cargo/sdk`), `${out.path}/sdk`);
    await h.host.shutdown(200);
    // The next start brings the SDK copy up to date (the audit: the outside `sdk` was replaced).
    const reports: string[] = [];
    const { Host } = await import("../core/host.ts");
    const host = new Host(root, {
      sandboxes: 1,
      watch: false,
      report: (l) => reports.push(l),
      openTestHost,
    });
    await host.start();
    await host.shutdown(200);
    assert.ok(
      reports.some((l) => /SDK was not copied.*plugins\/cargo leads outside the world/.test(l)),
      reports.join("\n"),
    );
    out.untouched();
    h = await TestHost.open(root);
  } finally {
    await h.close();
    await Deno.remove(out.path, { recursive: true });
  }
});

/** A build script that copies what it finds in the SDK folder into its own source folder. */
function sdkThief(sdk: string): string {
  return `fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap();
    let got = std::fs::read_to_string("${sdk}/secret.txt").unwrap_or_else(|e| format!("denied({e})"));
    std::fs::write(format!("{dir}/stolen.txt"), &got).unwrap();
}
`;
}

Deno.test({
  name:
    "the build never binds a planted link: plugins/cargo/sdk leading into another world, and state/cargo leading out, are refused",
  ...opts,
}, async () => {
  const out = await outsideFolder();
  const other = await TestHost.start({ files: { "secret/secret.txt": "OTHER WORLD'S SECRET" } });
  const h = await TestHost.start({ plugins: { hostile, fsprobe } });
  try {
    const files = {
      "Cargo.toml": CARGO_TOML,
      "src/main.rs": "fn main() {}\n",
      "build.rs": sdkThief(`${h.root}/plugins/cargo/sdk`),
    };
    const ok = await h.result<BuildAnswer>("hostile.build_pwn", { plugin: "pwn", files });
    assert.ok(ok.result, `a build with the real SDK copy works: ${JSON.stringify(ok)}`);
    // plugins/cargo/sdk: a link into the other world, planted deep and moved up.
    const otherSecret = `${await Deno.realPath(other.root)}/secret`;
    const ops = plantLink(h.root, "plugins/cargo", "sdk", otherSecret, ["plugins/cargo"]);
    planted(await guestOps(h, ops), "plugins/cargo/sdk");
    const r = await h.result<BuildAnswer>("hostile.build_pwn", { plugin: "pwn", files });
    assert.ok(r.error, "the build is refused");
    assert.match(r.error.message, /plugins\/cargo\/sdk is a link: refused/);
    assert.equal(r.error.data.step, "prepare");
    const stolen = await Deno.readTextFile(`${h.root}/plugins/pwn/source/stolen.txt`);
    assert.ok(!stolen.includes("SECRET"), "the other world was never mounted");
    assert.deepEqual(names(`${other.root}/secret`), ["secret.txt"]);

    // state/cargo: a link out, planted the same way; the build folder is never made there.
    // Put the real SDK copy back (the folder holding the planted link goes).
    Deno.removeSync(`${h.root}/plugins/cargo`, { recursive: true });
    Deno.renameSync(`${h.root}/plugins/cargo.old`, `${h.root}/plugins/cargo`);
    const ops2 = plantLink(h.root, "state/cargo", "builds", out.path);
    Deno.removeSync(`${h.root}/state/cargo`, { recursive: true });
    planted(await guestOps(h, ops2), "state/cargo/builds");
    const r2 = await h.result<BuildAnswer>("hostile.build_pwn", { plugin: "pwn", files });
    assert.ok(r2.error, `the build output is not written through the link: ${JSON.stringify(r2)}`);
    assert.match(r2.error.message, /leads outside the world/);
    out.untouched();
  } finally {
    await h.close();
    await other.close();
    await Deno.remove(out.path, { recursive: true });
  }
});

/** A build script that writes over the world's core files, as the audit's did with `source -> ../..`. */
const CLOBBER_SCRIPT = `fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap();
    let _ = std::fs::write(format!("{dir}/state/core/journal.sqlite"), "CLOBBERED");
    let _ = std::fs::write(format!("{dir}/state/core/host.json"), "CLOBBERED");
}
`;

Deno.test({
  name:
    "a plugin source that is a link to ../.. is refused: by cargo.build and by the build at start; the core's files are untouched",
  ...opts,
}, async () => {
  const h = await TestHost.start({ plugins: { fsprobe } });
  try {
    const results = await guestOps(h, [
      { op: "write", path: "/Cargo.toml", text: CARGO_TOML },
      { op: "mkdir_all", path: "/src" },
      { op: "write", path: "/src/main.rs", text: "fn main() {}\n" },
      { op: "write", path: "/build.rs", text: CLOBBER_SCRIPT },
      { op: "mkdir_all", path: "/plugins/pwn" },
      { op: "symlink", path: "/plugins/pwn/source", target: "../.." },
      { op: "lstat", path: "/plugins/pwn/source" },
    ]);
    planted(results, "plugins/pwn/source");
    const journal = await sha256(Deno.readFileSync(`${h.root}/state/core/journal.sqlite`));
    const r = await h.call("cargo.build", { plugin: "pwn" });
    assert.ok(r.error, "cargo.build refuses it");
    assert.match(r.error.message, /source is a link/);
    // The build at start (`run` rebuilt it at every start) refuses it too.
    const { buildChanged } = await import("../cli/start_builds.ts");
    const failed = await buildChanged(new World(h.root), (m, p) => h.call(m, p), h.root);
    assert.equal(failed.length, 1);
    assert.match(failed[0].line, /\/plugins\/pwn\/source is a link/);
    await assert.rejects(
      buildPlugin(`${h.root}/plugins/pwn/source`, `${h.root}/state/x.wasm`, { world: h.root }),
      /is a link: refused/,
    );
    assert.equal(
      await sha256(Deno.readFileSync(`${h.root}/state/core/journal.sqlite`)),
      journal,
      "the journal was not overwritten",
    );
    for (const e of Deno.readDirSync(`${h.root}/state/core`)) {
      if (!e.isFile) continue;
      const text = Deno.readFileSync(`${h.root}/state/core/${e.name}`);
      assert.ok(!new TextDecoder().decode(text).startsWith("CLOBBERED"), e.name);
    }
  } finally {
    await h.close();
  }
});

/** Whether `path` is a symbolic link. */
function existsLink(path: string): boolean {
  try {
    return Deno.lstatSync(path).isSymlink;
  } catch {
    return false;
  }
}

Deno.test({
  name:
    ".cargo/config.toml and config reads never follow a link a guest planted deep and moved shallower",
  ...opts,
}, async () => {
  const out = await outsideFolder();
  const h = await TestHost.start({ plugins: { fsprobe } });
  try {
    await Deno.writeTextFile(`${out.path}/config.toml`, "original\n");
    const ops = plantLink(h.root, ".cargo", "config.toml", `${out.path}/config.toml`);
    planted(await guestOps(h, ops), ".cargo/config.toml");
    await writeCargoConfig(h.root, { skipSysroot: true });
    assert.equal(Deno.readTextFileSync(`${out.path}/config.toml`), "original\n");
    assert.match(Deno.readTextFileSync(`${h.root}/.cargo/config.toml`), /Written by sausage/);
    Deno.removeSync(`${out.path}/config.toml`);
    // config/boot.json: guests cannot plant anything in config/ (the owner's, read-only to them)...
    await Deno.writeTextFile(`${out.path}/boot.json`, "[]");
    const ops2 = plantLink(h.root, "config", "boot.json", `${out.path}/boot.json`, []);
    const tried = await guestOps(h, ops2) as ({ error?: string } | null)[];
    assert.ok(
      tried.some((r) => r?.error === "ReadOnlyFilesystem"),
      `a guest's write in config/ fails: ${JSON.stringify(tried)}`,
    );
    assert.ok(!existsLink(`${h.root}/config/boot.json`), "no link was planted in config/");
    // ...and a link out that got there by other means is refused with the file named, not read.
    Deno.mkdirSync(`${h.root}/config`, { recursive: true });
    Deno.symlinkSync(`${out.path}/boot.json`, `${h.root}/config/boot.json`);
    assert.throws(() => bootCalls(new World(h.root)), /config\/boot.json.*outside the world/);
    Deno.removeSync(`${out.path}/boot.json`);
    out.untouched();
  } finally {
    await h.close();
    await Deno.remove(out.path, { recursive: true });
  }
});
