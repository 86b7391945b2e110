/**
 * The journal's hand-off alone, for one checkout: a journal on a file (its
 * real worker), fed as a lone caller's no-op calls feed it (a `start` and an
 * `exit` line of a pid per call, `per` calls each millisecond), with the CPU
 * per call of this thread (the event loop) and of the worker, from
 * `/proc/self/task`; "loop, journal's part" is the loop's CPU less that of
 * the same ticks with no call (measured first). Run checkouts alternately
 * to compare them.
 *
 *   deno run --allow-all bench/journal_handoff.ts [checkout=this one] [calls=6000] [per=2]
 *
 * @module
 */

const here = new URL("..", import.meta.url).pathname;
const tree = (Deno.args[0] ?? here).replace(/\/?$/, "/");
const calls = Number(Deno.args[1] ?? 6000);
const per = Number(Deno.args[2] ?? 2);
const { threadsCpuMs } = await import(`${here}bench/cpu_time.ts`);
const { Journal } = await import(`${tree}core/journal/journal.ts`);
const { uuidv7 } = await import(`${tree}core/processes/uuid.ts`);

/** CPU ms so far of this process's main thread and of its workers (`cpu_time.ts`). */
const threads = threadsCpuMs;

const dir = Deno.makeTempDirSync();
const journal = new Journal(`${dir}/journal.sqlite`, () => {});
await new Promise((r) => setTimeout(r, 1000)); // the worker is up
const start = JSON.stringify({
  event: "start",
  method: "noop",
  params: {},
  parent: "x",
  detached: false,
  engine: "p1",
});
/** `calls / per` ticks of a millisecond, each with `per` calls journaled or none. */
async function ticks(journaled: boolean): Promise<void> {
  for (let done = 0; done < calls;) {
    for (let i = 0; i < per; i++, done++) {
      const pid = `probe-${uuidv7()}`;
      if (!journaled) continue;
      journal.append(pid, "probe", "core", start);
      journal.append(pid, "probe", "core", '{"event":"exit","status":0}');
    }
    await new Promise((r) => setTimeout(r, 1));
  }
}
const b0 = threads();
await ticks(false);
const b1 = threads();
const t0 = threads();
const w0 = performance.now();
await ticks(true);
const wall = performance.now() - w0;
await new Promise((r) => setTimeout(r, 50)); // the last rows written
const t1 = threads();
journal.close();
Deno.removeSync(dir, { recursive: true });
const us = (ms: number) => (ms * 1000 / calls).toFixed(1);
console.log(
  `${tree}\t${(calls / wall * 1000).toFixed(0)} calls/s\tloop ${us(t1.loop - t0.loop)} µs ` +
    `(journal's part ${us(t1.loop - t0.loop - (b1.loop - b0.loop))})\t` +
    `worker ${us(t1.worker - t0.worker)} µs per call`,
);
