/**
 * The one client of a world (`core/control/world_client.ts`) in the host's own OS
 * process: a link in memory is served as the control socket is (host
 * queries, calls, notifications), and closing a client ends its caller, so
 * the processes its calls left running are stopped. A real host with the
 * `probe` plugin built from Rust source.
 */

import { strict as assert } from "node:assert";
import { WorldClient } from "../core/control/world_client.ts";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { eventually, hostTests } from "./helpers/host.ts";

const probe = await builtTestPlugin("probe");
const test = hostTests({ plugins: { probe } });

test("a client in memory gets host queries and calls answered, as over the socket", async (h) => {
  const c = WorldClient.of(h.host, "console");
  try {
    assert.equal(c.running, false);
    assert.deepEqual(await c.request("$/hello", {}), { world: h.root, pid: Deno.pid });
    assert.deepEqual(await c.request("probe.echo", { n: 1 }), { n: 1 });
    assert.equal(c.lastId, "console-2");
    const names = ((await c.list("/")).entries ?? []).map((e) => e.name);
    assert.ok(names.includes("plugins"), names.join(" "));
    await assert.rejects(c.read("/no/such/file"), /no-entry/);
  } finally {
    await c.close();
  }
});

test("closing a client stops the processes its calls left running; its pending call fails", async (h) => {
  const c = WorldClient.of(h.host, "console");
  const { pid } = await c.request("probe.serve", {}) as { pid: string };
  assert.ok(h.host.table.all().some((p) => p.pid === pid), "serve runs on after its answer");
  const pending = c.send("probe.spin", {});
  await eventually(() => h.host.table.all().some((p) => p.method === "spin"), "the spinner");
  await c.close();
  assert.match((await pending).error?.message ?? "", /the host closed the connection/);
  await eventually(() => h.host.table.size === 0, "every process of the client to stop", 20_000);
  assert.match((await c.send("probe.echo", {})).error?.message ?? "", /closed/);
});
