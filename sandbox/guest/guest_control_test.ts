import { strict as assert } from "node:assert";
import { Writer } from "../../wasm/binary.ts";
import { instrumentModule } from "../../wasm/preempt.ts";
import { GuestControl, GuestKilled, UNPAUSABLE_MS } from "./guest_control.ts";

/** A section: id, then the length-prefixed body. */
function section(w: Writer, id: number, body: Writer): void {
  w.u8(id).u32(body.length).bytes(body.view());
}

/**
 * A module whose one function loops for ever, calling the import `env.host`
 * in each iteration when `callHost`; the function is the start function
 * (`asStart`) or the export `run`.
 */
function loopModule(callHost: boolean, asStart: boolean): WebAssembly.Module {
  const w = new Writer().bytes(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  section(w, 1, new Writer().u32(1).u8(0x60).u32(0).u32(0)); // () -> ()
  if (callHost) section(w, 2, new Writer().u32(1).name("env").name("host").u8(0).u32(0));
  const self = callHost ? 1 : 0;
  section(w, 3, new Writer().u32(1).u32(0));
  if (!asStart) section(w, 7, new Writer().u32(1).name("run").u8(0).u32(self));
  else section(w, 8, new Writer().u32(self));
  const body = new Writer().u32(0).u8(0x03).u8(0x40); // loop
  if (callHost) body.u8(0x10).u32(0); // call $host
  body.u8(0x0c).u32(0).u8(0x0b).u8(0x0b); // br 0; end; end
  section(w, 10, new Writer().u32(1).u32(body.length).bytes(body.view()));
  const out = instrumentModule(w.view().slice())!;
  return new WebAssembly.Module(out.bytes);
}

// deno-lint-ignore no-explicit-any
const jspi = WebAssembly as any;

Deno.test("a start function that spins is ended alone, by its own deadline", () => {
  const guest = new GuestControl(2 ** 30);
  const other = new GuestControl(2 ** 30);
  const t = performance.now();
  assert.throws(() => guest.instantiateCore(loopModule(false, true), {}, true), GuestKilled);
  const took = performance.now() - t;
  assert.ok(took >= UNPAUSABLE_MS && took < UNPAUSABLE_MS * 4, `ended after ${took} ms`);
  assert.match(guest.killReason!, /cannot be paused/);
  assert.equal(other.killed, false, "its neighbour goes on");
});

Deno.test("a loop of host calls that return at once lets the event loop run", async () => {
  const guest = new GuestControl(2 ** 30);
  let calls = 0;
  let callsWhenTimerFired = -1;
  const timer = setTimeout(() => (callsWhenTimerFired = calls), 5);
  // Each call returns a promise that is already resolved; after 300,000 the guest is failed.
  const host = new jspi.Suspending(guest.guard(() => {
    if (++calls >= 300_000) return Promise.reject(new Error("enough"));
    return Promise.resolve();
  }));
  const { exports } = guest.instantiateCore(loopModule(true, false), { env: { host } }, true);
  const run = jspi.promising(exports.run);
  guest.started();
  await assert.rejects(run(), /enough/);
  clearTimeout(timer);
  assert.ok(
    callsWhenTimerFired >= 0 && callsWhenTimerFired < 300_000,
    `a 5 ms timer fired after ${callsWhenTimerFired} of 300,000 calls`,
  );
});

/**
 * A module whose exported `run` loops for ever: a cheap loop of `spin`
 * iterations, then (when `fill`) a `memory.fill` of its whole memory of 64 MiB.
 */
function fillLoopModule(fill: boolean): WebAssembly.Module {
  const w = new Writer().bytes(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  section(w, 1, new Writer().u32(1).u8(0x60).u32(0).u32(0)); // () -> ()
  section(w, 3, new Writer().u32(1).u32(0));
  section(w, 5, new Writer().u32(1).u8(0).u32(1024)); // 64 MiB
  section(w, 7, new Writer().u32(1).name("run").u8(0).u32(0));
  const body = new Writer().u32(1).u32(1).u8(0x7f); // local $i
  body.u8(0x03).u8(0x40); // loop
  body.u8(0x41).s32(0).u8(0x21).u32(0); // i = 0
  body.u8(0x03).u8(0x40); // loop: i++ while i < 100,000
  body.u8(0x20).u32(0).u8(0x41).s32(1).u8(0x6a).u8(0x22).u32(0); // local.tee
  body.u8(0x41).s32(100_000).u8(0x49).u8(0x0d).u32(0).u8(0x0b); // i32.lt_u; br_if 0; end
  if (fill) body.u8(0x41).s32(0).u8(0x41).s32(7).u8(0x41).s32(64 << 20).u8(0xfc).u32(11).u8(0);
  body.u8(0x0c).u32(0).u8(0x0b).u8(0x0b); // br 0; end; end
  section(w, 10, new Writer().u32(1).u32(body.length).bytes(body.view()));
  return new WebAssembly.Module(instrumentModule(w.view().slice())!.bytes);
}

/** The longest gap (ms) between the ticks of a 1 ms interval while the module's `run` runs for `ms`. */
async function worstGapBeside(module: WebAssembly.Module, ms: number): Promise<number> {
  const guest = new GuestControl(2 ** 31);
  let last = performance.now(), worst = 0;
  const timer = setInterval(() => {
    const t = performance.now();
    worst = Math.max(worst, t - last);
    last = t;
  }, 1);
  const { exports } = guest.instantiateCore(module, {}, true);
  const run = jspi.promising(exports.run);
  guest.started();
  setTimeout(() => guest.kill(), ms);
  await assert.rejects(run(), GuestKilled);
  clearInterval(timer);
  return worst;
}

Deno.test("a loop of whole-memory fills after a cheap loop holds the thread no longer than a spinner", async () => {
  // Before, a cheap loop stretched the fuel's period, and the fills it paid for ran 1-4 GiB
  // between two checks: a 2.7 s gap under load where a spinner left 68 ms.
  const spinner = await worstGapBeside(fillLoopModule(false), 2000);
  const filler = await worstGapBeside(fillLoopModule(true), 2000);
  console.log(`worst gap: spinner ${spinner.toFixed(1)} ms, filler ${filler.toFixed(1)} ms`);
  assert.ok(filler < spinner * 5 + 100, `filler ${filler} ms, spinner ${spinner} ms`);
});

Deno.test("a host call still running after a kill counts as pending until it settles", async () => {
  const guest = new GuestControl(2 ** 30);
  let settle!: () => void;
  const call = guest.guard(() => new Promise<number>((r) => (settle = () => r(0))));
  const waited = call() as Promise<number>;
  assert.equal(guest.pendingCalls, 1);
  guest.kill();
  await assert.rejects(waited, GuestKilled);
  assert.equal(guest.pendingCalls, 1, "the kill failed the wait, not the call");
  settle();
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(guest.pendingCalls, 0);
});
