/**
 * Builds run in the build sandbox (`core/cargo/build_jail.ts`): a plugin
 * writes a crate whose build script tries to read outside the world, write
 * outside its build folders, read the home folder and open a network
 * connection, and asks the core to build it (the attack of issue 11); a
 * transient host never builds at all.
 */

import assert from "node:assert/strict";
import { TestHost } from "./helpers/host.ts";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { makeWorld } from "./helpers/world.ts";
import { cacheDir } from "../core/paths.ts";

const hostile = await builtTestPlugin("hostile");
const opts = { sanitizeOps: false, sanitizeResources: false };
const launcher = new URL("../sausage", import.meta.url).pathname;

const CARGO_TOML = `[package]
name = "pwn"
version = "0.1.0"
edition = "2021"
build = "build.rs"
`;

const MAIN_RS = "fn main() {}\n";

/**
 * A build script that marks that it ran (in its own source folder, which it
 * may write), then tries each escape and fails the build with a report:
 * `denied(<error>)` or `ALLOWED` for each.
 */
function buildScript(outside: string, port: number, home: string): string {
  return `use std::io::Read;
fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap();
    std::fs::write(format!("{dir}/ran.txt"), "ran").unwrap();
    let read = match std::fs::read_to_string("${outside}/secret.txt") {
        Ok(_) => "ALLOWED".to_string(),
        Err(e) => format!("denied({e})"),
    };
    let write = match std::fs::write("${outside}/pwned.txt", "pwned") {
        Ok(_) => "ALLOWED".to_string(),
        Err(e) => format!("denied({e})"),
    };
    // Mount points of the cache folder may show as empty folders; nothing else may.
    let home = match std::fs::read_dir("${home}") {
        Ok(d) => d.map(|e| e.unwrap().file_name().into_string().unwrap()).collect::<Vec<_>>().join(","),
        Err(e) => format!("denied({e})"),
    };
    let net = match std::net::TcpStream::connect("127.0.0.1:${port}") {
        Ok(mut s) => { let mut b = [0u8; 1]; let _ = s.read(&mut b); "ALLOWED".to_string() }
        Err(e) => format!("denied({e})"),
    };
    panic!("sandbox report: read={read} write={write} home={home} net={net}");
}
`;
}

Deno.test({
  name:
    "a build script cannot read outside the world, write outside its folders, see the home folder or connect; the build reports it",
  ...opts,
}, async () => {
  const outside = await Deno.makeTempDir({ prefix: "sausage-outside-" });
  await Deno.writeTextFile(`${outside}/secret.txt`, "TOP SECRET");
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let accepted = 0;
  (async () => {
    for await (const c of listener) (accepted++, c.close());
  })();
  const home = Deno.env.get("HOME") ?? "/root";
  const h = await TestHost.start({ plugins: { hostile } });
  try {
    const r = await h.result<
      { error?: { code: number; message: string; data: { output: string } } }
    >(
      "hostile.build_pwn",
      {
        plugin: "pwn",
        files: {
          "Cargo.toml": CARGO_TOML,
          "src/main.rs": MAIN_RS,
          "build.rs": buildScript(outside, listener.addr.port, home),
        },
      },
    );
    assert.ok(r.error, "the build failed");
    assert.match(r.error.message, /pwn was not built/);
    const report = r.error.data.output.match(/sandbox report: (.*)/)?.[1];
    assert.ok(
      report,
      `the build script ran and its report is in the output:\n${r.error.data.output}`,
    );
    assert.doesNotMatch(report, /ALLOWED/, report);
    for (const what of ["read", "write", "net"]) {
      assert.match(report, new RegExp(`${what}=denied\\(`), report);
    }
    const seen = report.match(/home=(\S*)/)![1];
    const visible = seen.startsWith("denied(") ? [] : seen.split(",").filter(Boolean);
    const inHome = [...Deno.readDirSync(home)].map((e) => e.name);
    assert.ok(inHome.some((n) => !visible.includes(n)), "the home folder's files are not there");
    for (const n of visible) {
      const host = `${home}/${n}`;
      assert.ok(cacheDir().startsWith(host + "/") || cacheDir() === host, `${host} is visible`);
    }
    assert.equal(
      Deno.readTextFileSync(`${h.root}/plugins/pwn/source/ran.txt`),
      "ran",
      "the script could write its own source folder",
    );
    assert.deepEqual([...Deno.readDirSync(outside)].map((e) => e.name), ["secret.txt"]);
    assert.equal(accepted, 0, "no connection reached the listener");
    assert.equal(await h.result("hostile.mark"), "ok", "the host still answers");
  } finally {
    listener.close();
    await h.close();
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test({
  name: "a transient host (sausage call without a running host) never builds: -32001 says how",
  ...opts,
}, async () => {
  const world = await makeWorld({
    files: {
      "plugins/pwn/source/Cargo.toml": CARGO_TOML,
      "plugins/pwn/source/src/main.rs": MAIN_RS,
      "plugins/pwn/source/build.rs":
        'fn main() { std::fs::write(format!("{}/ran.txt", std::env::var("CARGO_MANIFEST_DIR").unwrap()), "ran").unwrap(); }\n',
    },
  });
  try {
    const out = await new Deno.Command(launcher, {
      args: ["call", world, "pwn.main"],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 1);
    assert.match(stderr, /-32001/);
    assert.match(stderr, /pwn is not built/);
    assert.match(stderr, /cargo\.build/);
    assert.doesNotMatch(stderr, /building pwn/);
    await assert.rejects(Deno.stat(`${world}/plugins/pwn/source/ran.txt`), "nothing was built");
    await assert.rejects(Deno.stat(`${world}/plugins/pwn/plugin.wasm`));
  } finally {
    await Deno.remove(world, { recursive: true });
  }
});

Deno.test({
  name: "without a sandbox builds are refused, unless SAUSAGE_UNSANDBOXED_BUILDS=1 says so",
  ...opts,
}, async () => {
  const probe = new URL("./plugins/probe", import.meta.url).pathname;
  const out = await Deno.makeTempDir({ prefix: "sausage-unsandboxed-" });
  const build = (env: Record<string, string>) =>
    new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        "--config",
        new URL("../deno.json", import.meta.url).pathname,
        `import { buildPlugin } from "${new URL("../core/cargo/cargo_build.ts", import.meta.url)}";
         try { await buildPlugin("${probe}", "${out}/probe.wasm"); console.log("built"); }
         catch (e) { console.log(e.message + "\\n" + e.output); }`,
      ],
      env: { SAUSAGE_BWRAP: "/nonexistent/bwrap", ...env },
      stdout: "piped",
      stderr: "piped",
    }).output().then((o) => new TextDecoder().decode(o.stdout));
  try {
    const refused = await build({});
    assert.match(refused, /the build was refused: bubblewrap \(bwrap\) is not installed/);
    assert.match(refused, /SAUSAGE_UNSANDBOXED_BUILDS=1/);
    await assert.rejects(Deno.stat(`${out}/probe.wasm`));
    assert.match(await build({ SAUSAGE_UNSANDBOXED_BUILDS: "1" }), /built/);
    assert.ok((await Deno.stat(`${out}/probe.wasm`)).isFile);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});
