import { strict as assert } from "node:assert";
import { Deadlines } from "./deadlines.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("deadlines fire in order, never early and at most a grain late; cancelled ones never", async () => {
  const d = new Deadlines(10);
  const t0 = performance.now();
  const fired: [string, number][] = [];
  // Each deadline's due time as this test saw it when adding it: on a loaded machine the
  // adds themselves are ms apart, so c (60 ms) may well be due before b (40 ms, added later).
  const due: Record<string, number> = {};
  const add = (name: string, ms: number) => {
    due[name] = performance.now() - t0 + ms;
    return d.add(ms, () => fired.push([name, performance.now() - t0]));
  };
  add("c", 60);
  add("a", 20);
  const cancel = add("never", 30);
  add("b", 40);
  add("b2", 40); // the same grain, unless the machine paused between the two
  cancel();
  assert.equal(d.size, 4);
  for (let i = 0; i < 500 && fired.length < 4; i++) await sleep(10); // a loaded machine is late
  await sleep(50); // the cancelled one's grain has passed too
  assert.deepEqual(fired.map(([n]) => n).sort(), ["a", "b", "b2", "c"]);
  for (let i = 1; i < fired.length; i++) {
    const [before, after] = [fired[i - 1][0], fired[i][0]];
    // In order of due time, up to the grain (deadlines in one grain fire together).
    assert.ok(
      due[before] <= due[after] + 10,
      `${before} fired before ${after}: ${JSON.stringify(due)}`,
    );
  }
  for (const [name, ms] of fired) assert.ok(ms >= due[name] - 1, `${name} fired early: ${ms} ms`);
  assert.equal(d.size, 0);
});

Deno.test("deadlines: an earlier one re-arms the timer; a callback that throws does not stop the others", async () => {
  let clock = 0;
  const d = new Deadlines(10, () => clock);
  const fired: string[] = [];
  d.add(1000, () => fired.push("late"));
  d.add(5, () => {
    fired.push("boom");
    throw new Error("a callback failed");
  });
  d.add(5, () => fired.push("early"));
  const uncaught: unknown[] = [];
  const onError = (e: ErrorEvent) => {
    e.preventDefault();
    uncaught.push(e.error);
  };
  globalThis.addEventListener("error", onError);
  try {
    clock = 10;
    await sleep(30);
    assert.deepEqual(fired, ["boom", "early"]);
    assert.equal((uncaught[0] as Error)?.message, "a callback failed");
    assert.equal(d.size, 1, "the late one still waits");
  } finally {
    globalThis.removeEventListener("error", onError);
    d.clear();
  }
});

Deno.test("deadlines: 100,000 added and cancelled never fire", async () => {
  const d = new Deadlines(10);
  let fired = 0;
  for (let i = 0; i < 100_000; i++) d.add(20 + (i % 50), () => fired++)();
  assert.equal(d.size, 0);
  await sleep(120);
  assert.equal(fired, 0);
});

Deno.test("deadlines: with none left, no timer runs (this test's op sanitizer checks)", async () => {
  const d = new Deadlines(10);
  const cancels = [d.add(200, () => {}), d.add(60_000, () => {})];
  for (const c of cancels) c();
  assert.equal(d.size, 0); // the timer kept, unref'd: the nearest was 200 ms away
  const near = d.add(20, () => {});
  near();
  near(); // twice: counted once
  assert.equal(d.size, 0);
  await sleep(60); // a near one's timer fires once, then stops
});

Deno.test("deadlines: cancelling one that fired already changes nothing (calls cancel at their end)", async () => {
  const d = new Deadlines(10);
  let fired = "";
  const first = d.add(5, () => fired += "a");
  for (let i = 0; i < 500 && !fired; i++) await sleep(10);
  first(); // its process ended after its time limit fired
  first();
  const far = d.add(10_000, () => fired += "never");
  d.add(30, () => fired += "b");
  far(); // one deadline left: it must still fire
  assert.equal(d.size, 1);
  for (let i = 0; i < 500 && fired !== "ab"; i++) await sleep(10);
  assert.equal(fired, "ab");
  assert.equal(d.size, 0);
});

/** Runs `code` (with `Deadlines` imported) in a fresh Deno; its stdout, or a failure after 30 s. */
async function inChild(code: string): Promise<string> {
  const url = new URL("./deadlines.ts", import.meta.url).href;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", `import { Deadlines } from "${url}";\n${code}`],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  // A bound, not a timing: a timer held wrongly would keep the child for minutes.
  const guard = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const out = await child.output();
  clearTimeout(guard);
  assert.equal(out.code, 0, "the child was killed: a timer kept it alive");
  return new TextDecoder().decode(out.stdout);
}

Deno.test("deadlines: a far timer kept after its last deadline keeps the process alive no longer", async () => {
  // A lone caller's time limit, added and cancelled: the process ends at once, not in 10 minutes.
  const out = await inChild(`
    const d = new Deadlines(10);
    d.add(600_000, () => console.log("fired"))();
    d.add(600_000, () => console.log("fired"))();
    console.log("done", d.size);
  `);
  assert.equal(out, "done 0\n");
});

Deno.test("deadlines: a deadline added to a kept timer holds the process until it fires", async () => {
  const out = await inChild(`
    const d = new Deadlines(10);
    d.add(300, () => console.log("never"))(); // the timer kept, unref'd, for the 300 ms grain
    d.add(400, () => console.log("fired")); // later than the kept timer: it holds it again
  `);
  assert.equal(out, "fired\n");
});

Deno.test("deadlines: the kept timer serves later deadlines, near and far, each fired once", async () => {
  const d = new Deadlines(10);
  let fired = "";
  d.add(10_000, () => fired += "x")(); // kept, unref'd, for the 10 s grain
  d.add(20_000, () => fired += "far")(); // later than it: it is held again, then kept again
  d.add(30, () => fired += "a"); // earlier: a timer of its own
  d.add(60, () => fired += "b");
  for (let i = 0; i < 500 && fired !== "ab"; i++) await sleep(10);
  assert.equal(fired, "ab");
  assert.equal(d.size, 0);
});
