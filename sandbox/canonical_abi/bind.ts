/**
 * WASI 0.2 functions that a main module imports directly (the SDK's
 * `wasi:io/poll`, streams, stdin, random, sockets, HTTP client), bound at
 * the canonical-ABI level on the lean path: parameters lifted from core
 * arguments, results returned or stored through the guest's return
 * pointer, lists and strings placed with its `cabi_realloc`, resources kept
 * in one handle table. The implementations are `sandbox/wasi/`'s, the ones
 * jco's glue calls, in jco's value forms: a function whose result is a
 * `result` returns its `ok` value and throws its `err` value. The ones that
 * may wait (`ASYNC_IMPORTS`) are `WebAssembly.Suspending`.
 *
 * @module
 */

import { ASYNC_IMPORTS } from "../wasi/async_imports.ts";
import { type Abi, type ArgReader, loadOf, storeOf } from "./abi.ts";
import { liftOf, lowerOf } from "./lift.ts";
import { flatOf } from "./layout.ts";
import { interfaceOf, type WitFunction, witFunctions } from "./wit.ts";

/** The most flat parameters passed as core arguments (more go through memory). */
const MAX_FLAT_PARAMS = 16;

const ASYNC = new Set(ASYNC_IMPORTS);

/** JSPI's wrapper for an import that may return a promise (not yet in TypeScript's lib). */
const Suspending = (WebAssembly as unknown as { Suspending: new (f: unknown) => object })
  .Suspending;

/** An import of a main module: its module and field names. */
export interface ComponentImport {
  module: string;
  name: string;
}

/** The `err` value a host function threw, in jco's way; a fault is thrown on (a trap). */
function errorPayload(e: unknown): unknown {
  if (e && typeof e === "object" && Object.hasOwn(e, "payload")) {
    return (e as { payload: unknown }).payload;
  }
  if (e instanceof Error) throw e;
  return e;
}

/** The host function `f` of `iface` (jco's form), called with lifted values. */
function target(f: WitFunction, iface: Record<string, unknown>): (vals: unknown[]) => unknown {
  // deno-lint-ignore no-explicit-any
  type Any = any;
  const cls = f.className && iface[f.className] as Any;
  switch (f.kind) {
    case "func": {
      const fn = iface[f.member] as Any;
      if (typeof fn !== "function") throw new Error(`no host function ${f.member}`);
      return (vals) => fn(...vals);
    }
    case "method":
      return (vals) => (vals[0] as Any)[f.member](...vals.slice(1));
    case "static":
      return (vals) => cls[f.member](...vals);
    case "constructor":
      return (vals) => new cls(...vals);
    case "drop":
      return (vals) => (vals[0] as Any)[Symbol.dispose]?.();
  }
}

/** How one function's values cross: made once per signature, used by every process. */
interface Plan {
  lift(abi: Abi, args: unknown[]): unknown[];
  finish(abi: Abi, v: unknown, args: unknown[]): unknown;
}

const plans = new WeakMap<WitFunction, Plan>();

function planOf(f: WitFunction): Plan {
  let plan = plans.get(f);
  if (plan) return plan;
  const tuple = { k: "tuple" as const, of: f.params };
  const viaMemory = flatOf(tuple).length > MAX_FLAT_PARAMS;
  const lifts = f.params.map(liftOf);
  const loadParams = loadOf(tuple);
  const result = f.result;
  const retptr = result !== undefined && flatOf(result).length > 1;
  const store = retptr ? storeOf(result!) : null;
  const lower = result && !retptr ? lowerOf(result) : null;
  plan = {
    lift(abi, args) {
      if (viaMemory) return loadParams(abi, args[0] as number) as unknown[];
      const r: ArgReader = { args, i: 0 };
      return lifts.map((l) => l(abi, r));
    },
    finish(abi, v, args) {
      if (store) store(abi, args[args.length - 1] as number, v);
      else if (lower) return lower(abi, v);
    },
  };
  plans.set(f, plan);
  return plan;
}

/** One core import for `f`: lifts, calls, lowers. */
function bindOne(
  f: WitFunction,
  call: (vals: unknown[]) => unknown,
  abi: Abi,
  waits: boolean,
): (...args: unknown[]) => unknown {
  const { lift, finish } = planOf(f);
  if (f.result?.k === "result") {
    const ok = (val: unknown) => ({ tag: "ok", val });
    const err = (e: unknown) => ({ tag: "err", val: errorPayload(e) });
    return (...args) => {
      let r: unknown;
      try {
        r = call(lift(abi, args));
      } catch (e) {
        return finish(abi, err(e), args);
      }
      if (waits && r instanceof Promise) {
        return r.then(ok, err).then((v) => finish(abi, v, args));
      }
      return finish(abi, ok(r), args);
    };
  }
  return (...args) => {
    const r = call(lift(abi, args));
    if (waits && r instanceof Promise) return r.then((v) => finish(abi, v, args));
    return finish(abi, r, args);
  };
}

/**
 * The import namespaces for `wanted` (every one bound: see `isBound`),
 * calling `interfaces` (`sandbox/wasi/`'s, keyed `wasi:io/streams`). Call it
 * inside `GuestControl.instantiate`, so that the waiting ones are bound to
 * the guest.
 */
export function componentImports(
  wanted: readonly ComponentImport[],
  interfaces: Record<string, unknown>,
  abi: Abi,
): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const { module, name, ifaceName, f, waits } of resolved(wanted)) {
    const iface = interfaces[ifaceName] as Record<string, unknown> | undefined;
    if (!iface) throw new Error(`${module}#${name} is not bound on this path`);
    const fn = bindOne(f, target(f, iface), abi, waits);
    (out[module] ??= {})[name] = waits ? new Suspending(fn) : fn;
  }
  return out;
}

/** One wanted import with what binding it needs, found once per module. */
interface ResolvedImport extends ComponentImport {
  ifaceName: string;
  f: WitFunction;
  waits: boolean;
}

/** The wanted imports of each loaded module, resolved (names matched every process cost ~5 % of one). */
const resolvedByList = new WeakMap<readonly ComponentImport[], ResolvedImport[]>();

function resolved(wanted: readonly ComponentImport[]): ResolvedImport[] {
  let list = resolvedByList.get(wanted);
  if (list) return list;
  const all = witFunctions();
  list = wanted.map(({ module, name }) => {
    const ifaceName = interfaceOf(module);
    const f = ifaceName === null ? undefined : all.get(ifaceName)?.get(name);
    if (!f || ifaceName === null) throw new Error(`${module}#${name} is not bound on this path`);
    return { module, name, ifaceName, f, waits: ASYNC.has(`${ifaceName}#${name}`) };
  });
  resolvedByList.set(wanted, list);
  return list;
}
