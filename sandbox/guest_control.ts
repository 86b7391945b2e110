/**
 * Sharing one thread among many guests: time slices, kills and memory
 * limits (DECISIONS.md, "Many processes per sandbox").
 *
 * Core modules are instrumented (`wasm/preempt.ts`): their loops and calls
 * count fuel down and call the `yield` import at zero. That import is a
 * `WebAssembly.Suspending`: it returns at once while the current time slice
 * lasts, and otherwise suspends the guest until the next macrotask, so the
 * event loop (other guests, the pipe to the core) runs. A killed guest traps
 * at its next check, and every host call it waits on (a read, a poll)
 * fails at once.
 *
 * A guest may only suspend when no JavaScript frame sits between the
 * suspension point and its `run` export (JSPI's rule). jco's glue calls back
 * into wasm from JavaScript (`cabi_realloc`, post-return functions); those
 * calls are counted (`depth`) and a check inside them never suspends.
 *
 * @module
 */

import type { MemoryShare } from "./memory_share.ts";
import {
  CHECK_IMPORT,
  GROW_IMPORT,
  INITIAL_FUEL,
  PREEMPT_MODULE,
  YIELD_IMPORT,
} from "../wasm/preempt.ts";

/**
 * How long a guest runs before it lets the others run, in ms. With 5 ms, a
 * no-op call beside two spinners waited p50 11.7 ms; with 2 ms, p50 2.0 ms
 * (bench/colocation.ts).
 */
export const SLICE_MS = 2;

/** Thrown into a killed guest at its next check or host call. */
export class GuestKilled extends Error {
  constructor() {
    super("killed");
  }
}

// deno-lint-ignore no-explicit-any
type Fn = (...args: any[]) => any;

/** JavaScript frames that re-entered wasm (a check inside them must not suspend). */
let depth = 0;
/** When the wasm now running got the thread. */
let sliceStart = performance.now();
/** The guest whose glue is being instantiated (its async imports are made now). */
let instantiating: GuestControl | null = null;
/** Export wrappers to the wasm functions they wrap. */
const originals = new WeakMap<Fn, Fn>();

/** JSPI's two entry points (not yet in TypeScript's lib). */
interface Jspi {
  Suspending: new (fn: Fn) => object;
  promising: (fn: Fn) => Fn;
}

/** True when `wasm` (the `WebAssembly` namespace) has JSPI's entry points. */
function hasJspi(wasm: object): wasm is Jspi {
  return "Suspending" in wasm && typeof wasm.Suspending === "function" &&
    "promising" in wasm && typeof wasm.promising === "function";
}

const wasm: object = WebAssembly;
if (!hasJspi(wasm)) {
  throw new Error(
    "this Deno has no JSPI (WebAssembly.Suspending and promising), which guests need: " +
      "run the pinned Deno (./node_modules/.bin/deno)",
  );
}
const jspi = wasm;
const OriginalSuspending = jspi.Suspending;
const originalPromising = jspi.promising;

/** Async imports made while a guest's glue is instantiated are bound to that guest. */
class OwnedSuspending extends OriginalSuspending {
  constructor(fn: Fn) {
    const owner = instantiating;
    super(owner ? owner.guard(fn) : fn);
  }
}
jspi.Suspending = OwnedSuspending;
jspi.promising = (f: Fn) => originalPromising(originals.get(f) ?? f);

/**
 * Runs `f` after pending I/O (the pipe to the core, sockets) and the other
 * guests: `setImmediate` runs after the event loop's poll phase. A
 * `MessageChannel` message starved the pipe (a call beside two spinners took
 * 270–550 ms); `setTimeout(0)` took ~10 ms; `setImmediate` 5–10 ms.
 */
function nextTurn(f: () => void): void {
  setImmediate(f);
}

/** The scheduling state of one guest: its fuel, its kill switch, its memory limit. */
export class GuestControl {
  /** Set once the guest was killed. */
  killed = false;
  /** Why the sandbox itself killed it (a broken limit); unset for a kill the core asked for. */
  killReason: string | undefined;
  /** Set when the guest tried to grow its memory past the limit. */
  memoryLimitHit = false;
  /** Set when a grow failed because the sandbox's share of the world's memory was in use. */
  worldMemoryHit = false;
  /** The bytes its grows took from the sandbox's share (given back by `releaseMemory`). */
  private grown = 0;
  private period = INITIAL_FUEL;
  private lastCheck = 0;
  private waiting = new Set<(e: unknown) => void>();

  /**
   * @param memoryLimit the most bytes any one memory of the guest may have
   * @param share the sandbox's share of the world's memory, which its grows draw on
   */
  constructor(readonly memoryLimit: number, readonly share?: MemoryShare) {}

  /** Gives the bytes its grows took back to the sandbox's share (once it has ended). */
  releaseMemory(): void {
    this.share?.give(this.grown);
    this.grown = 0;
  }

  /**
   * Kills the guest: it traps at its next check, and its pending host calls
   * fail now. `reason` is given when the sandbox ends it for breaking a limit.
   */
  kill(reason?: string): void {
    if (this.killed) return;
    this.killed = true;
    this.killReason = reason;
    for (const reject of this.waiting) reject(new GuestKilled());
    this.waiting.clear();
  }

  /** Instantiates the guest's glue with `f`: the async imports made meanwhile are this guest's. */
  instantiate<T>(f: () => T): T {
    instantiating = this;
    try {
      return f();
    } finally {
      instantiating = null;
    }
  }

  /** Marks the start of the guest's run: a fresh time slice. */
  started(): void {
    sliceStart = this.lastCheck = performance.now();
  }

  /**
   * Wraps an async host function of this guest: the guest is failed with
   * {@link GuestKilled} at once when killed while it waits, and a resumed
   * guest starts a fresh time slice.
   */
  guard(fn: Fn): Fn {
    return (...args: unknown[]) => {
      if (this.killed) throw new GuestKilled();
      const r = fn(...args);
      if (!(r instanceof Promise)) return r;
      return this.wait(r);
    };
  }

  private wait<T>(p: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.add(reject);
      p.then((v) => {
        this.waiting.delete(reject);
        if (this.killed) return reject(new GuestKilled());
        sliceStart = performance.now();
        resolve(v);
      }, (e) => {
        this.waiting.delete(reject);
        reject(e);
      });
    });
  }

  /**
   * The `check` import, when the fuel ran out: traps a killed guest; 0 (so
   * the guest calls `yield`) when its slice is used up and it may suspend;
   * else more fuel, adapted so that checks come every 0.2–2 ms of running
   * whatever a loop iteration costs.
   */
  private check(): number {
    if (this.killed) throw new GuestKilled();
    const now = performance.now();
    if (this.lastCheck >= sliceStart) {
      const dt = now - this.lastCheck;
      if (dt < 0.2 && this.period < 2 ** 28) this.period *= 2;
      else if (dt > 2 && this.period > 64) this.period = Math.floor(this.period / 2);
    }
    this.lastCheck = now;
    return depth > 0 || now - sliceStart < SLICE_MS ? this.period : 0;
  }

  /** The `yield` import: resumes the guest with more fuel after the others had a turn. */
  private yield(): Promise<number> {
    return this.wait(new Promise<void>((r) => nextTurn(r))).then(() => {
      this.lastCheck = sliceStart;
      return this.period;
    });
  }

  /** The `grow` import: the page delta for `memory.grow`, or -1 (fail) past the limit. */
  private grow(delta: number, size: number): number {
    if (this.killed) throw new GuestKilled();
    if (((size >>> 0) + (delta >>> 0)) * 65536 > this.memoryLimit) {
      this.memoryLimitHit = true;
      return -1;
    }
    const bytes = (delta >>> 0) * 65536;
    if (this.share && !this.share.take(bytes)) {
      this.worldMemoryHit = true;
      return -1;
    }
    this.grown += bytes;
    return delta;
  }

  /**
   * jco's `instantiateCore` hook for this guest: links wasm to wasm
   * directly, adds the preemption imports to instrumented modules, and
   * hands the glue export wrappers that count re-entries from JavaScript.
   */
  instantiateCore(
    m: WebAssembly.Module,
    imports: Record<string, Record<string, unknown>> = {},
    /** `m` imports `sausage:preempt` (its loader reads that from the bytes: `wasm/import_list.ts`). */
    preemptible = false,
  ): { exports: Record<string, unknown> } {
    const linked: Record<string, Record<string, unknown>> = {};
    for (const [ns, values] of Object.entries(imports)) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(values)) {
        out[k] = typeof v === "function" ? originals.get(v as Fn) ?? v : v;
      }
      linked[ns] = out;
    }
    if (preemptible) {
      linked[PREEMPT_MODULE] = {
        [CHECK_IMPORT]: () => this.check(),
        [YIELD_IMPORT]: new OriginalSuspending(() => this.yield()),
        [GROW_IMPORT]: (delta: number, size: number) => this.grow(delta, size),
      };
    }
    // A start function runs inside this JavaScript frame: it must not suspend.
    depth++;
    let instance: WebAssembly.Instance;
    try {
      instance = new WebAssembly.Instance(m, linked as WebAssembly.Imports);
    } finally {
      depth--;
    }
    const exports: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(instance.exports)) {
      exports[k] = typeof v === "function" && !WASM_ONLY_EXPORT.test(k) ? reentry(v as Fn) : v;
    }
    return { exports };
  }
}

/**
 * Exports that only wasm calls, so they need no re-entry count: jco's shim
 * module exports its indirect-call stubs under numbers ("0", "1", …), and the
 * glue only hands them to other modules as imports, never calls them (each
 * wrapper cost ~1 µs and a WeakMap entry, for ~40 stubs per process).
 */
const WASM_ONLY_EXPORT = /^[0-9]+$/;

/** Wraps a wasm export for calls from JavaScript: counted in `depth` while they run. */
function reentry(f: Fn): Fn {
  const wrapper = (...args: unknown[]) => {
    depth++;
    try {
      return f(...args);
    } finally {
      depth--;
    }
  };
  originals.set(wrapper, f);
  return wrapper;
}
