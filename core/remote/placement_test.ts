import { strict as assert } from "node:assert";
import { Placer, readPlacement } from "./placement.ts";
import type { SandboxPool } from "../sandboxes/sandbox_pool.ts";
import type { WorkerSet } from "./worker_set.ts";
import type { RemoteWorker } from "./remote_worker.ts";
import { HostError } from "../../rpc/errors.ts";

const made: string[] = [];

/** A temporary world with `config/placement.json` holding `placement`, if given. */
async function world(placement?: string): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "sausage-placement-" });
  made.push(root);
  await Deno.mkdir(`${root}/config`);
  if (placement !== undefined) await Deno.writeTextFile(`${root}/config/placement.json`, placement);
  return root;
}

Deno.test("placement.json: local by default, per plugin, JSONC; a bad value is one clear error", async () => {
  assert.deepEqual(readPlacement(await world()), { default: "local", plugins: {} });
  const p = readPlacement(
    await world('{"default": "anywhere", "plugins": {"a": "remote", "b": "local"}, /* c */}'),
  );
  assert.deepEqual(p, { default: "anywhere", plugins: { a: "remote", b: "local" } });
  const bad = await world('{"plugins": {"a": "elsewhere"}}');
  assert.throws(() => readPlacement(bad), /placement.json: "a" must be local, remote or anywhere/);
  for (const root of made) await Deno.remove(root, { recursive: true });
});

/** A placer over a fake pool (one sandbox running `localLoad`) and a fake worker set. */
function placer(opts: { localLoad: number; worker: RemoteWorker | null; down?: string }) {
  const local = { local: true };
  const pool = {
    place: () => Promise.resolve(local),
    sandboxes: [{ hasEnded: false, load: opts.localLoad }],
  } as unknown as SandboxPool;
  const workers = {
    pick: () => opts.worker,
    settle: () => Promise.resolve(),
  } as unknown as WorkerSet;
  const placement = { default: "local" as const, plugins: { r: "remote", a: "anywhere" } as const };
  return { local, placer: new Placer(pool, workers, placement, () => opts.down ?? null) };
}

/** A fake worker with `share`; `count.n` counts its picks. */
function worker(share: number, count = { n: 0 }): RemoteWorker {
  return { worker: "w1", share, picked: () => count.n++ } as unknown as RemoteWorker;
}

Deno.test("placer: local stays local, remote needs a worker, anywhere goes where the load is less", async () => {
  const count = { n: 0 };
  const w = worker(0, count);
  let { local, placer: p } = placer({ localLoad: 0, worker: w });
  assert.equal(await p.place("l"), local);
  assert.equal(await p.place(), local); // a command
  assert.equal(await p.place("r"), w);
  assert.equal(count.n, 1);
  assert.equal(await p.place("a"), local); // a tie stays on the host
  ({ local, placer: p } = placer({ localLoad: 2, worker: w }));
  assert.equal(await p.place("a"), w);
  assert.equal(count.n, 2);
});

Deno.test("placer: a remote plugin fails at once with no worker, or with NATS down", async () => {
  const none = placer({ localLoad: 0, worker: null }).placer;
  await assert.rejects(
    none.place("r"),
    (e) => e instanceof HostError && e.code === "no-answer" && /no worker is there/.test(e.message),
  );
  const down = placer({ localLoad: 5, worker: worker(0), down: "the server closed" }).placer;
  await assert.rejects(down.place("r"), /NATS is unreachable \(the server closed\)/);
  assert.equal((await down.place("a") as { local?: boolean }).local, true); // anywhere: the host
});
