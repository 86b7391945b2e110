/**
 * `inFolder` holds the process's working folder for its thread: another
 * thread of the same process entering its own folder meanwhile (a test module
 * of `deno test --parallel`, a `Worker`) no longer makes a bare name mean a
 * file of that other folder. Before the lock, writes and reads in a world
 * folder beside such a thread failed with `changed while it was opened`
 * (once in a parallel run of `vfs/mounts_test.ts`; here within a few hundred
 * operations).
 */

import { strict as assert } from "node:assert";
import { DiskMount } from "./disk_mount.ts";
import { READ_ONLY } from "./mount.ts";

Deno.test("inFolder: a thread entering its own folder meanwhile changes nothing here", async () => {
  const mine = await Deno.makeTempDir();
  const theirs = await Deno.makeTempDir();
  const worker = new Worker(new URL("./confined_dir_worker.ts", import.meta.url), {
    type: "module",
  });
  try {
    let entered = 0;
    let theirFailures: string[] = [];
    const ready = new Promise<void>((resolve) => {
      worker.onmessage = (e) => {
        if (e.data.ready) resolve();
        if (e.data.entered) ({ entered, failures: theirFailures } = e.data);
      };
    });
    worker.postMessage({ root: theirs });
    await ready;
    const m = new DiskMount(mine);
    m.mkdir("dir");
    const failures: string[] = [];
    // 400 ms of contention, and on a loaded machine until the other thread has entered its
    // folder a few hundred times (at most 20 s).
    const start = Date.now();
    const busy = () => Date.now() - start < 400 || (entered < 300 && Date.now() - start < 20_000);
    let ops = 0;
    for (let i = 0; busy(); i++) {
      try {
        const name = `dir/${i % 7}`;
        const w = m.open(name, { ...READ_ONLY, write: true, create: true, truncate: true })!;
        await w.write(new TextEncoder().encode(`${i}`), 0);
        w.close();
        const r = m.open(name, READ_ONLY)!;
        assert.equal(new TextDecoder().decode(await r.read(100, 0)), `${i}`);
        r.close();
        ops += 2;
      } catch (e) {
        failures.push(String(e));
      }
      if (i % 50 === 0) await new Promise((r) => setTimeout(r, 0)); // let the worker report
    }
    assert.ok(entered > 50, `the other thread entered its folder ${entered} times`);
    assert.deepEqual(failures.slice(0, 3), [], `${failures.length} of ${ops} operations failed`);
    assert.deepEqual(theirFailures.slice(0, 3), [], `the other thread: ${theirFailures.length}`);
    // Nothing landed in the other thread's folder.
    assert.deepEqual([...Deno.readDirSync(`${theirs}/dir`)], []);
  } finally {
    worker.terminate();
    await Deno.remove(mine, { recursive: true });
    await Deno.remove(theirs, { recursive: true });
  }
});
