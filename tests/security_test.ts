/**
 * The world is the boundary (SECURITY.md): a hostile plugin
 * (`tests/plugins/hostile`) tries each attack of issue 11 on a real host,
 * and each test checks on disk, from outside, that nothing outside the world
 * was read or changed, that the host still answers and that the journal is
 * intact. The control channel is attacked the same way: from a guest, from
 * another world's guest, and with an HTTP request.
 */

import assert from "node:assert/strict";
import { ControlServer } from "../core/control/control_server.ts";
import { WorldClient } from "../core/control/world_client.ts";
import { World } from "../core/world/world.ts";
import { hostTests, TestHost } from "./helpers/host.ts";
import { builtTestPlugin } from "./helpers/plugins.ts";

const hostile = await builtTestPlugin("hostile");
const opts = { sanitizeOps: false, sanitizeResources: false };
const test = hostTests({ plugins: { hostile } });
const launcher = new URL("../sausage", import.meta.url).pathname;

/** A folder outside every world, with a secret in it; returns its path. */
async function outsideFolder(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "sausage-outside-" });
  await Deno.writeTextFile(`${dir}/secret.txt`, "TOP SECRET");
  return dir;
}

/** The names in a folder, sorted. */
function names(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((e) => e.name).sort();
}

/** Checks that the outside folder holds exactly its secret, unchanged. */
function untouched(dir: string): void {
  assert.deepEqual(names(dir), ["secret.txt"], "nothing was created outside the world");
  assert.equal(Deno.readTextFileSync(`${dir}/secret.txt`), "TOP SECRET", "the secret is intact");
}

/** Checks that the host answers and the journal file is a readable SQLite database. */
async function stillHealthy(h: TestHost): Promise<void> {
  assert.equal(await h.result("hostile.mark"), "ok", "the host still answers");
  const head = Deno.readFileSync(`${h.root}/state/core/journal.sqlite`).subarray(0, 15);
  assert.equal(new TextDecoder().decode(head), "SQLite format 3", "the journal file is intact");
  assert.ok(h.host.journal.query({ limit: 5 }).length > 0, "the journal reads");
}

/** A test on a host with `hostile`, beside a folder outside every world (removed at the end). */
function outsideTest(name: string, fn: (h: TestHost, outside: string) => Promise<void>): void {
  test(name, async (h) => {
    const outside = await outsideFolder();
    try {
      await fn(h, outside);
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  });
}

/** A test on a host with `hostile` and its control server. */
function controlTest(name: string, fn: (h: TestHost, control: ControlServer) => Promise<void>) {
  test(name, async (h) => {
    const control = await ControlServer.start(h.host);
    try {
      await fn(h, control);
    } finally {
      control.close();
    }
  });
}

test(
  "a guest cannot write, create, truncate, rename or delete the core's files; it may read them",
  async (h) => {
    const before = Deno.readFileSync(`${h.root}/state/core/journal.sqlite`).length;
    const r = await h.result<Record<string, string>>("hostile.clobber_core");
    for (const [attack, outcome] of Object.entries(r)) {
      if (attack.startsWith("read_")) continue;
      // Sandboxes cannot make links at all (Deno allows symlink only with unscoped permissions).
      const expected = attack === "via_link" ? /^err/ : /^err: .*read-only/i;
      assert.match(outcome, expected, `${attack} is refused as read-only: ${outcome}`);
    }
    assert.equal(r.read_journal, "ok", "reading the journal is allowed");
    // Only the core's own files: the journal and the SDK copy's stamp.
    const own = (n: string) =>
      n.startsWith("journal") || n === "sdk-copy.json" || n === "host.lock";
    assert.deepEqual(names(`${h.root}/state/core`).filter((n) => !own(n)), []);
    assert.ok(Deno.statSync(`${h.root}/state/core/journal.sqlite`).size >= before);
    assert.ok(!names(`${h.root}/state`).includes("stolen.sqlite"));
    await stillHealthy(h);
  },
);

Deno.test({
  name: "a journal that cannot be opened is moved aside: sausage call still works and says so",
  ...opts,
}, async () => {
  const h = await TestHost.start({ plugins: { hostile } });
  await h.host.shutdown(200);
  const journal = `${h.root}/state/core/journal.sqlite`;
  for (const f of names(`${h.root}/state/core`)) Deno.removeSync(`${h.root}/state/core/${f}`);
  Deno.writeTextFileSync(journal, "CLOBBERED");
  try {
    const out = await new Deno.Command(launcher, {
      args: ["call", h.root, "hostile.mark"],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    assert.equal(new TextDecoder().decode(out.stdout).trim(), '"ok"');
    assert.match(stderr, /journal .* could not be used .* moved to .*damaged/);
    const aside = names(`${h.root}/state/core`).find((n) => n.includes(".damaged-"))!;
    assert.equal(Deno.readTextFileSync(`${h.root}/state/core/${aside}`), "CLOBBERED");
    const log = await new Deno.Command(launcher, {
      args: ["log", h.root, "--json"],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.match(new TextDecoder().decode(log.stdout), /journal-recovered/);
  } finally {
    await Deno.remove(h.root, { recursive: true });
  }
});

outsideTest(
  "links that leave the world: guests cannot make or move them, and the core never follows them",
  async (h, outside) => {
    Deno.symlinkSync(outside, `${h.root}/abs_link`);
    Deno.copyFileSync(hostile, `${h.root}/state/v.wasm`);
    const made = await h.result<Record<string, string>>("hostile.make_links");
    for (const [kind, outcome] of Object.entries(made)) {
      assert.match(outcome, /^err/, `a ${kind} link is refused: ${outcome}`);
    }
    // The attack of the issue: rename the outside link to a plugin folder, then activate there.
    const r = await h.result<{ renamed: string; activate: { error?: unknown } }>(
      "hostile.rename_link",
      { link: "/abs_link", to: "/plugins/victim", plugin: "victim", wasm: "/state/v.wasm" },
    );
    assert.match(r.renamed, /^err/, "the outside link cannot be moved");
    // Even where such a link is already in place, activation and revert do not follow it.
    Deno.renameSync(`${h.root}/abs_link`, `${h.root}/plugins/victim2`);
    const act = await h.call("core.activate", {
      plugin: "victim2",
      wasm: "/state/v.wasm",
      force: true,
    });
    assert.match(act.error!.message, /outside the world/);
    const rev = await h.call("core.revert", { plugin: "victim2" });
    assert.ok(rev.error, "revert through the link is refused");
    Deno.mkdirSync(`${h.root}/plugins/victim3`);
    Deno.symlinkSync(`${outside}/secret.txt`, `${h.root}/plugins/victim3/plugin.prev.wasm`);
    assert.match((await h.call("core.revert", { plugin: "victim3" })).error!.message, /outside/);
    Deno.symlinkSync(`${outside}/secret.txt`, `${h.root}/state/out.wasm`);
    const fromOutside = await h.call("core.activate", { plugin: "v4", wasm: "/state/out.wasm" });
    assert.match(fromOutside.error!.message, /outside the world/);
    // sausage cat / ls (the host's view) refuse the link too.
    await assert.rejects(h.host.fs.read("/plugins/victim2/secret.txt"), /not-permitted|symlink/);
    await assert.rejects(h.host.fs.list("/plugins/victim2"), /not-permitted|symlink/);
    untouched(outside);
    await stillHealthy(h);
  },
);

outsideTest(
  "a link flipped in a loop against a folder never leads a create, write or read outside",
  async (h, outside) => {
    Deno.symlinkSync(outside, `${h.root}/escape`);
    Deno.mkdirSync(`${h.root}/d`);
    // Another process flips /d between the folder and a link to the outside link.
    const flipper = new Deno.Command("bash", {
      args: [
        "-c",
        `cd ${h.root} && while :; do mv d d_dir && ln -s escape d && rm d && mv d_dir d; done`,
      ],
      stdout: "null",
      stderr: "null",
    }).spawn();
    try {
      const r = await h.result<{ wrote: number; read_secret: number; refused: number }>(
        "hostile.race",
        { iterations: 4000, secret: "TOP SECRET" },
      );
      assert.equal(r.read_secret, 0, "the secret was never read");
      assert.ok(r.wrote + r.refused === 4000);
    } finally {
      flipper.kill("SIGKILL");
      await flipper.status;
    }
    untouched(outside);
    await stillHealthy(h);
  },
);

controlTest(
  "the control channel: host.json names no way in; the socket is private and outside the world",
  async (h, control) => {
    const file = JSON.parse(Deno.readTextFileSync(`${h.root}/state/core/host.json`));
    assert.deepEqual(Object.keys(file).sort(), ["pid", "started", "world"]);
    assert.ok(!control.path.startsWith(h.root), "the socket is outside the world");
    assert.ok(new TextEncoder().encode(control.path).length <= 107);
    const dir = control.path.slice(0, control.path.lastIndexOf("/"));
    assert.equal(Deno.statSync(dir).mode! & 0o777, 0o700);
    assert.equal(Deno.statSync(control.path).mode! & 0o777, 0o600);
    const client = await WorldClient.connect(new World(h.root));
    assert.ok(client, "the owner connects");
    assert.equal(await client.request("hostile.mark", {}), "ok");
    client.close();
  },
);

Deno.test({
  name: "a guest, and another world's guest, cannot reach the control channel",
  ...opts,
}, async () => {
  const a = await TestHost.start({ plugins: { hostile } });
  const b = await TestHost.start({ plugins: { hostile } });
  const control = await ControlServer.start(a.host);
  try {
    const params = { socket: control.path, other_host_json: `${a.root}/state/core/host.json` };
    for (const h of [a, b]) {
      const r = await h.result<Record<string, string>>("hostile.control", params);
      assert.doesNotMatch(r.host_json, /port|sock|token/, "host.json names no way in");
      assert.match(r.open_socket, /^err/);
      assert.match(r.open_socket_relative, /^err/);
      assert.match(r.read_other_world, /^err/);
    }
    assert.ok(!names(a.root).includes("marker.txt"));
  } finally {
    control.close();
    await a.close();
    await b.close();
  }
});

/** Sends `text` on a new connection to the socket; resolves with everything it answers until it closes. */
async function rawExchange(path: string, text: string): Promise<string> {
  const conn = await Deno.connect({ transport: "unix", path });
  await conn.write(new TextEncoder().encode(text));
  let out = "";
  const buf = new Uint8Array(4096);
  for (;;) {
    const n = await conn.read(buf);
    if (n === null) break;
    out += new TextDecoder().decode(buf.subarray(0, n));
  }
  conn.close();
  return out;
}

controlTest(
  "an HTTP request or a call without $/hello is refused before anything runs",
  async (h, control) => {
    const call = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "hostile.mark", params: {} });
    const http = await rawExchange(
      control.path,
      `POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\n` +
        `Content-Length: ${call.length + 1}\r\n\r\n${call}\n`,
    );
    assert.match(http, /first message must be a \$\/hello request/);
    const bare = await rawExchange(control.path, `${call}\n`);
    assert.match(bare, /first message must be a \$\/hello request/);
    assert.ok(!names(`${h.root}/state`).includes("marker.txt"), "the call was not executed");
    const starts = h.host.journal.query({ plugin: "hostile", grep: '"event":"start"' });
    assert.equal(starts.length, 0, "no process started");
  },
);
