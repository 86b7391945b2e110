/**
 * The example plugins of section 13 in a real host: `www` (13.2, a server
 * with an endpoint) and `secrets` (13.3, a singleton). `notes` (13.1) is
 * tested with the SDK in `tests/sdk_test.ts`.
 */

import { strict as assert } from "node:assert";
import { hostTests, TestHost } from "../tests/helpers/host.ts";
import { cachedBuild } from "../core/cargo/cached_build.ts";
import { builtCrate } from "../tests/helpers/plugins.ts";
import { freePort } from "../tests/helpers/net.ts";

const www = await builtCrate("examples/www", "www");
const secrets = await builtCrate("examples/secrets", "secrets");
// A client of endpoints: `sdkprobe.client {path, interface?, calls}`.
const sdkprobe = await builtCrate("sdk/tests/plugins/sdkprobe", "sdkprobe");

const test = hostTests({ plugins: { www, secrets, sdkprobe } });

test("www serves /state/www over HTTP with its own TcpListener; control counts and stops it; fs/hits shows the count", async (h) => {
  await Deno.mkdir(`${h.root}/state/www/docs`, { recursive: true });
  await Deno.writeTextFile(`${h.root}/state/www/index.html`, "<h1>hi</h1>");
  await Deno.writeTextFile(`${h.root}/state/www/docs/a b.txt`, "spaced");
  // A free port can be taken by another process before www binds it: then another one.
  let port = 0, pid = "";
  for (let attempt = 0; !pid; attempt++) {
    port = freePort();
    const r = await h.call("www.start", { port });
    if (r.error && /in use/i.test(r.error.message) && attempt < 5) continue;
    if (r.error) throw new Error(`www.start failed: ${r.error.message}`);
    pid = r.result as string;
  }
  const get = async (path: string) => {
    const r = await fetch(`http://127.0.0.1:${port}${path}`);
    return [r.status, r.headers.get("content-type"), await r.text()];
  };
  assert.deepEqual(await get("/"), [200, "text/html; charset=utf-8", "<h1>hi</h1>"]);
  assert.deepEqual(await get("/docs/a%20b.txt"), [200, "text/plain; charset=utf-8", "spaced"]);
  assert.equal((await get("/missing.txt"))[0], 404);
  const control = `/proc/${pid}/control`;
  // www counts a request once its answer is written; the client can have read it first.
  // So ask until the count is in: it can only grow, to 3.
  let stats: number[] = [];
  for (let asked = 0; asked < 100 && stats[0] !== 3; asked++) {
    stats = await h.result<number[]>("sdkprobe.client", {
      path: control,
      interface: "control",
      calls: [{ method: "stats" }],
    });
    assert.ok(stats[0] <= 3, `at most 3 requests: ${stats}`);
  }
  assert.deepEqual(stats, [3]);
  // The same count as a file it serves (PROTOCOL 5.1); the endpoint is a pipe of the core (6).
  assert.equal(new TextDecoder().decode(await h.host.fs.read(`/proc/${pid}/fs/hits`)), "3\n");
  assert.match(new TextDecoder().decode(await h.host.fs.read(control)), /^pipe:\d+ /);
  const busy = await h.call("www.start", { port });
  assert.ok(busy.error, "a second server on the same port fails");
  assert.match(busy.error!.message, /in use/i);
  const server = h.host.table.get(pid)!;
  assert.deepEqual(
    await h.result("sdkprobe.client", { path: control, calls: [{ method: "stop" }] }),
    [null],
  );
  await server.ended; // the process's end itself, not a timer
  assert.equal(h.host.table.get(pid), undefined);
});

test("secrets: one detached service per world behind /run/secrets, started on demand", async (h) => {
  assert.deepEqual(await h.result("secrets.names"), []);
  const service = h.host.table.all().find((p) => p.plugin === "secrets" && p.method === "start");
  assert.ok(service, "the first call started the service");
  assert.equal(service.detached, true);
  await h.result("secrets.set", { name: "b", value: "2" });
  await h.result("secrets.set", { name: "a", value: "1" });
  assert.equal(await h.result("secrets.get", { name: "a" }), "1");
  assert.equal(await h.result("secrets.get", { name: "nothere" }), null);
  assert.deepEqual(await h.result("secrets.names"), ["a", "b"]);
  assert.equal(await h.result("secrets.delete", { name: "a" }), true);
  assert.equal(await h.result("secrets.delete", { name: "a" }), false);
  const starts = await Promise.all([1, 2, 3].map(() => h.result<string>("secrets.start")));
  assert.deepEqual(
    starts,
    [service.pid, service.pid, service.pid],
    "start returns the running service",
  );
  assert.deepEqual(JSON.parse(await Deno.readTextFile(`${h.root}/state/secrets/secrets.json`)), {
    b: "2",
  });

  await h.result("core.stop", { pid: service.pid });
  assert.equal(await h.result("secrets.get", { name: "b" }), "2", "a new service reads the file");
  const again = h.host.table.all().find((p) => p.plugin === "secrets" && p.method === "start");
  assert.ok(again && again.pid !== service.pid);
});

/** The listening TCP sockets of this machine on `port`: their local addresses (`/proc/net/tcp`). */
function listeners(port: number): string[] {
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  return Deno.readTextFileSync("/proc/net/tcp").split("\n").slice(1)
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f[1]?.endsWith(`:${hex}`) && f[3] === "0A")
    .map((f) => f[1].split(":")[0]);
}

Deno.test({
  name: "examples/world's www listens on 127.0.0.1 unless /config/www.json gives a host",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const ROOT = new URL("..", import.meta.url).pathname;
  const worldWww = await cachedBuild(
    `${ROOT}examples/world/plugins/www/source`,
    "examples-world",
    "www",
  );
  for (const [config, expected] of [[undefined, "0100007F"], ['{"host": "0.0.0.0"}', "00000000"]]) {
    const files: Record<string, string> = config ? { "config/www.json": config } : {};
    const h = await TestHost.start({ plugins: { www: worldWww }, files });
    try {
      let port = 0, pid = "";
      for (let attempt = 0; !pid; attempt++) {
        port = freePort();
        const r = await h.call("www.start", { port });
        if (r.error && /in use/i.test(r.error.message) && attempt < 5) continue;
        if (r.error) throw new Error(`www.start failed: ${r.error.message}`);
        pid = r.result as string;
      }
      assert.deepEqual(listeners(port), [expected], `config ${config ?? "none"}`);
      await h.result("core.stop", { pid });
    } finally {
      await h.close();
    }
  }
});
