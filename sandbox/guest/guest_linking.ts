/**
 * Where guests' wasm meets JavaScript (DECISIONS.md, "Many processes per
 * sandbox"): JSPI's entry points, patched so that the async imports made
 * while a guest's glue is instantiated are that guest's; calls from
 * JavaScript back into wasm, counted in {@link depth} (a check there must not
 * suspend: JSPI allows no JavaScript frame between the suspension and the
 * `promising` export); and the linking of core modules for jco's
 * `instantiateCore` hook, wasm to wasm directly, host functions wrapped.
 *
 * @module
 */

import { EXPIRE_EXPORT, PREEMPT_MODULE } from "../../wasm/preempt.ts";

/** A function of any signature: a host function, a wasm export. */
// deno-lint-ignore no-explicit-any
export type Fn = (...args: any[]) => any;

/** The guest whose glue is being instantiated: its async imports are guarded by it. */
export interface GuestOwner {
  /** Wraps an async host function of the guest (`GuestControl.guard`). */
  guard(fn: Fn): Fn;
}

/** What linking a core module needs of its guest. */
export interface LinkedGuest {
  /** Wraps a host function that never waits (`GuestControl.hostCall`). */
  hostCall(fn: Fn): Fn;
  /** The `sausage:preempt` imports of an instrumented module. */
  preemptImports(): Record<string, unknown>;
  /** Takes an instance of the guest (`GuestControl.adopt`). */
  adopt(instance: WebAssembly.Instance): void;
}

/** JavaScript frames that re-entered wasm (a check inside them must not suspend). */
export let depth = 0;
/** The guest whose glue is being instantiated (its async imports are made now). */
let instantiating: GuestOwner | null = null;
/** Export wrappers to the wasm functions they wrap. */
const originals = new WeakMap<Fn, Fn>();
/** Functions exported by wasm instances (imports that are these are no host calls). */
const wasmFunctions = new WeakSet<Fn>();

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
/** JSPI's own `WebAssembly.Suspending`, for imports of the core's own (`yield`). */
export const OriginalSuspending = jspi.Suspending;
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

/** Instantiates a guest's glue with `f`: the async imports made meanwhile are `owner`'s. */
export function instantiateOwned<T>(owner: GuestOwner, f: () => T): T {
  instantiating = owner;
  try {
    return f();
  } finally {
    instantiating = null;
  }
}

/**
 * Knows the functions `instance` exports as wasm (imports that are these are
 * no host calls); returns its `sausage:expire` export, if instrumented.
 */
export function adoptInstance(instance: WebAssembly.Instance): (() => void) | undefined {
  let expire: (() => void) | undefined;
  for (const [k, v] of Object.entries(instance.exports)) {
    if (k === EXPIRE_EXPORT) expire = v as () => void;
    else if (typeof v === "function") wasmFunctions.add(v as Fn);
  }
  return expire;
}

/**
 * jco's `instantiateCore` hook for `guest`: links wasm to wasm directly,
 * wraps host functions (`hostCall`), adds the preemption imports to
 * instrumented modules (`preemptible`), and hands the glue export wrappers
 * that count re-entries from JavaScript.
 */
export function linkCore(
  guest: LinkedGuest,
  m: WebAssembly.Module,
  imports: Record<string, Record<string, unknown>>,
  preemptible: boolean,
): { exports: Record<string, unknown> } {
  const linked: Record<string, Record<string, unknown>> = {};
  for (const [ns, values] of Object.entries(imports)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(values)) {
      if (typeof v !== "function") out[k] = v;
      else {
        const f = originals.get(v as Fn) ?? v as Fn;
        out[k] = wasmFunctions.has(f) ? f : guest.hostCall(f);
      }
    }
    linked[ns] = out;
  }
  if (preemptible) linked[PREEMPT_MODULE] = guest.preemptImports();
  // A start function runs inside this JavaScript frame: it must not suspend.
  depth++;
  let instance: WebAssembly.Instance;
  try {
    instance = new WebAssembly.Instance(m, linked as WebAssembly.Imports);
  } finally {
    depth--;
  }
  guest.adopt(instance);
  const exports: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(instance.exports)) {
    if (k === EXPIRE_EXPORT) continue;
    exports[k] = typeof v === "function" && !WASM_ONLY_EXPORT.test(k) ? reentry(v as Fn) : v;
  }
  return { exports };
}

/**
 * Exports that only wasm calls, so they need no re-entry count: jco's shim
 * module exports its indirect-call stubs under numbers ("0", "1", …), and the
 * glue only hands them to other modules as imports, never calls them (each
 * wrapper cost ~1 µs and a WeakMap entry, for ~40 stubs per process).
 */
const WASM_ONLY_EXPORT = /^[0-9]+$/;

/** Wraps a wasm export for calls from JavaScript: counted in `depth` while they run. */
export function reentry(f: Fn): Fn {
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
