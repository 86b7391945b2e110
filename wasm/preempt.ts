/**
 * Makes a core module preemptible and its memory bounded, so that many
 * processes can share one sandbox thread (DECISIONS.md, "Many processes per
 * sandbox"). The rewrite adds:
 *
 * - a fuel counter (a mutable global) that every loop header counts down,
 *   and so does the entry of every function that can be part of a
 *   recursion (a loop without a loop instruction): functions in a cycle of
 *   direct calls, and functions that call indirectly; at zero it calls the import `sausage:preempt/check`, which returns
 *   the next amount of fuel, traps a killed guest, or returns 0 when the
 *   guest's time slice is used up: then the guest calls
 *   `sausage:preempt/yield`, which the host wraps in `WebAssembly.Suspending`
 *   to let the others run. (JSPI traps any call of a suspending import made
 *   outside a `promising` export, even one that would not suspend, so the
 *   common path must not touch it.)
 * - an exported function `sausage:expire` that sets the fuel to 1, so the
 *   host can make the next check come at once (when a host call finds the
 *   slice used up). Not the global itself exported: V8 keeps an exported
 *   mutable global out of line, and an empty loop ran 20–40 % slower;
 * - each `memory.fill` and `memory.copy` of memory 0 replaced by a call
 *   of an added function that does it in chunks: a budget of
 *   {@link BULK_BYTES} bytes (a global) pays for small operations at once;
 *   past it, the operation goes on in chunks of that size, and between two
 *   the function calls `sausage:preempt/bulk`, which traps a killed guest
 *   or returns 0 when the slice is used up: then it yields as a loop does.
 *   So neither a loop of large operations nor one operation of a whole
 *   memory (256 MiB of fresh pages took a second) holds the thread past a
 *   slice by more than one chunk. The fuel is left to the loops: bulk work
 *   that charged it made the loops' next period (adapted to their speed)
 *   meaningless. An operation out of bounds is done whole, so it traps
 *   before it writes anything, as the instruction does;
 * - before each `memory.grow` of memory 0, a call of `sausage:preempt/grow`
 *   with the page delta and the current size: the host applies the
 *   process's memory limit and returns the delta, or -1 (2^32 - 1 pages),
 *   which makes the grow fail as the guest expects when memory runs out.
 *
 * New imports come after the existing function imports, so every defined
 * function's index moves up by four: calls, `ref.func`, exports, the start
 * function, element segments and the name section are renumbered. The
 * bulk and expiring functions come after the defined ones.
 *
 * @module
 */

import { Reader, WasmFormatError, Writer } from "./binary.ts";
import {
  appendToVector,
  joinSections,
  SECTION,
  type Section,
  skipLimits,
  skipValType,
  splitSections,
} from "./sections.ts";
import { type ImportEntry, listImports } from "./import_list.ts";
import { copyExpression, type ExpressionEdit } from "./instructions.ts";
import { BodyMemo } from "./body_memo.ts";

/** The import module of the added functions. */
export const PREEMPT_MODULE = "sausage:preempt";
/** `() -> i32`: called when the fuel runs out; returns the next fuel, or 0 to yield. */
export const CHECK_IMPORT = "check";
/** `() -> i32`: suspends the guest until the others had a turn; returns the next fuel. */
export const YIELD_IMPORT = "yield";
/** `(delta: i32, size: i32) -> i32`: the page delta to grow memory 0 by, or -1 to fail. */
export const GROW_IMPORT = "grow";
/**
 * The fuel a fresh instance starts with (loop iterations and calls before
 * the first check): small, so that the first check comes early whatever an
 * iteration costs; the host then adapts the fuel to the loop's speed.
 */
export const INITIAL_FUEL = 64;
/** The export name of `() -> ()`, which sets the fuel to 1 (the next loop header or call checks). */
export const EXPIRE_EXPORT = "sausage:expire";
/** `() -> i32`: between two chunks of a bulk operation: 0 to yield, else go on. */
export const BULK_IMPORT = "bulk";
/**
 * The bytes of `memory.fill` and `memory.copy` done between two looks at
 * the clock: 256 KiB is ~0.02 ms when its pages are mapped, ~1 ms when fresh
 * (page faults; many times that under load).
 */
export const BULK_BYTES = 2 ** 18;

/** What the rewrite needs to know of a module before it changes it. */
interface Shape {
  types: number;
  funcImports: number;
  globalImports: number;
  globals: number;
  /** Memory 0 has 64-bit addresses (its bulk operations are left uncharged). */
  memory64: boolean;
  /** The module has a memory 0 (imported or its own). */
  memory: boolean;
}

/** Reads memory limits; true when they are of a 64-bit memory. */
function isMemory64(r: Reader): boolean {
  const flags = r.bytes[r.pos];
  skipLimits(r);
  return (flags & 4) !== 0;
}

function shapeOf(sections: Section[]): Shape {
  const imports = listImports(sections);
  const count = (kind: ImportEntry["kind"]) => imports.filter((i) => i.kind === kind).length;
  const memories = count("memory");
  const shape: Shape = {
    types: 0,
    funcImports: count("function"),
    globalImports: count("global"),
    globals: 0,
    memory64: ((imports.find((i) => i.kind === "memory")?.memory?.flags ?? 0) & 4) !== 0,
    memory: memories > 0,
  };
  for (const s of sections) {
    const r = new Reader(s.body);
    if (s.id === SECTION.type) {
      const n = r.u32();
      for (let i = 0; i < n; i++) {
        if (r.u8() !== 0x60) throw new WasmFormatError("GC types are not supported");
        for (let k = 0; k < 2; k++) {
          const m = r.u32();
          for (let j = 0; j < m; j++) skipValType(r);
        }
      }
      shape.types = n;
    } else if (s.id === SECTION.global) shape.globals = r.u32();
    else if (s.id === SECTION.memory) {
      if (r.u32() > 0 && memories === 0) {
        shape.memory = true;
        if (isMemory64(r)) shape.memory64 = true;
      }
    } else if (s.id === SECTION.table) {
      const n = r.u32();
      for (let i = 0; i < n; i++) {
        if (r.bytes[r.pos] === 0x40) throw new WasmFormatError("tables with initialisers");
        skipValType(r);
        skipLimits(r);
      }
    }
  }
  return shape;
}

/** Copies a vector of function indices, renumbered. */
function copyFuncIndices(r: Reader, w: Writer, remap: (i: number) => number): void {
  const n = r.u32();
  w.u32(n);
  for (let i = 0; i < n; i++) w.u32(remap(r.u32()));
}

function rewriteElements(body: Uint8Array, edit: ExpressionEdit): Uint8Array {
  const r = new Reader(body), w = new Writer();
  const n = r.u32();
  w.u32(n);
  for (let i = 0; i < n; i++) {
    const flags = r.u32();
    w.u32(flags);
    if (flags & 2 && !(flags & 1)) w.u32(r.u32()); // table index
    if (!(flags & 1)) copyExpression(r, w, edit, true); // offset
    if (flags & 3) { // element kind or reference type
      const start = r.pos;
      if (flags & 4) skipValType(r);
      else r.u8();
      w.bytes(body.subarray(start, r.pos));
    }
    if (flags & 4) {
      const m = r.u32();
      w.u32(m);
      for (let j = 0; j < m; j++) copyExpression(r, w, edit, true);
    } else copyFuncIndices(r, w, edit.funcIndex);
  }
  return w.view().slice();
}

/** The globals, with the two of {@link instrumentModule} (`added`) after them. */
function rewriteGlobals(body: Uint8Array | undefined, edit: ExpressionEdit, added: Uint8Array) {
  const w = new Writer();
  if (!body) return w.u32(2).bytes(added).view().slice();
  const r = new Reader(body);
  const n = r.u32();
  w.u32(n + 2);
  for (let i = 0; i < n; i++) {
    const start = r.pos;
    skipValType(r);
    r.u8();
    w.bytes(body.subarray(start, r.pos));
    copyExpression(r, w, edit, true);
  }
  return w.bytes(added).view().slice();
}

/** The indices a bulk function uses. */
interface BulkIndices {
  fuelGlobal: number;
  bulkGlobal: number;
  bulkImport: number;
  yieldFunc: number;
}

/**
 * The body of `$fill(d, v, n)` or `$copy(d, s, n)` (see the module doc): at
 * once within the budget; out of bounds, whole (it traps); else in chunks
 * of {@link BULK_BYTES}, asking `$bulk` between two (a copy whose
 * destination is above its source goes from the end, as a memmove does).
 */
function bulkFunction(op: "fill" | "copy", x: BulkIndices): Uint8Array {
  const D = 0, S = 1, N = 2, C = 3; // params d, v|s, n; local c
  const w = new Writer().u32(1).u32(1).u8(0x7f); // one i32 local: c
  const get = (l: number) => w.u8(0x20).u32(l);
  const set = (l: number) => w.u8(0x21).u32(l);
  const instr = () => (op === "fill" ? w.u8(0xfc).u32(11).u8(0) : w.u8(0xfc).u32(10).u8(0).u8(0));
  const whole = () => (get(D), get(S), get(N), instr());
  /** `d + n` (or `s + n`) past the memory's end, as an i64. */
  const past = (l: number) => {
    get(l).u8(0xad); // i64.extend_i32_u
    get(N).u8(0xad).u8(0x7c); // i64.add
    w.u8(0x3f).u8(0).u8(0xad).u8(0x42).s32(16).u8(0x86); // memory.size << 16
    w.u8(0x56); // i64.gt_u
  };
  /** Within the budget: take it from the budget, do the rest whole, return. */
  const rest = () => {
    get(N).u8(0x23).u32(x.bulkGlobal).u8(0x4d).u8(0x04).u8(0x40); // if n <= $bulk
    w.u8(0x23).u32(x.bulkGlobal);
    get(N).u8(0x6b).u8(0x24).u32(x.bulkGlobal); // $bulk -= n
    whole();
    w.u8(0x0f).u8(0x0b); // return; end
  };
  /** A new budget; a look at the clock, and a yield when it says so. */
  const between = () => {
    w.u8(0x41).s32(BULK_BYTES).u8(0x24).u32(x.bulkGlobal);
    w.u8(0x10).u32(x.bulkImport).u8(0x45).u8(0x04).u8(0x40); // if bulk() == 0
    w.u8(0x10).u32(x.yieldFunc).u8(0x24).u32(x.fuelGlobal); // $fuel = yield()
    w.u8(0x0b);
  };
  rest();
  past(D);
  if (op === "copy") (past(S), w.u8(0x72)); // i32.or
  w.u8(0x04).u8(0x40);
  whole();
  w.u8(0x0f).u8(0x0b); // out of bounds: whole (it traps); return
  /** The loop over chunks, from the start (`up`) or from the end. */
  const chunks = (up: boolean) => {
    w.u8(0x03).u8(0x40); // loop
    rest();
    w.u8(0x23).u32(x.bulkGlobal);
    set(C); // c = $bulk
    if (up) {
      get(D), get(S), get(C), instr();
      get(D), get(C), w.u8(0x6a), set(D); // d += c
      if (op === "copy") get(S), get(C), w.u8(0x6a), set(S); // s += c
      get(N), get(C), w.u8(0x6b), set(N); // n -= c
    } else {
      get(N), get(C), w.u8(0x6b), set(N); // n -= c
      get(D), get(N), w.u8(0x6a); // d + n
      get(S), get(N), w.u8(0x6a); // s + n
      get(C), instr();
    }
    between();
    w.u8(0x0c).u32(0).u8(0x0b); // br 0; end
  };
  if (op === "fill") chunks(true);
  else {
    get(D), get(S), w.u8(0x4b); // i32.gt_u: d > s
    w.u8(0x04).u8(0x40);
    chunks(false);
    w.u8(0x05); // else
    chunks(true);
    w.u8(0x0b);
  }
  w.u8(0x0b); // end
  return w.view().slice();
}

/** The exports renumbered, and the expiring function exported as {@link EXPIRE_EXPORT}. */
function rewriteExports(
  body: Uint8Array | undefined,
  remap: (i: number) => number,
  expireFunc: number,
) {
  const w = new Writer();
  if (!body) return w.u32(1).name(EXPIRE_EXPORT).u8(0x00).u32(expireFunc).view().slice();
  const r = new Reader(body);
  const n = r.u32();
  w.u32(n + 1);
  for (let i = 0; i < n; i++) {
    w.name(r.name());
    const kind = r.u8();
    const index = r.u32();
    w.u8(kind).u32(kind === 0 ? remap(index) : index);
  }
  return w.name(EXPIRE_EXPORT).u8(0x00).u32(expireFunc).view().slice();
}

function rewriteNames(body: Uint8Array, remap: (i: number) => number): Uint8Array {
  const r = new Reader(body), w = new Writer();
  w.name(r.name()); // "name"
  while (!r.done) {
    const id = r.u8();
    const size = r.u32();
    const sub = new Reader(body, r.pos, r.pos + size);
    r.pos += size;
    const out = new Writer();
    if (id === 1) {
      const n = sub.u32();
      out.u32(n);
      for (let i = 0; i < n; i++) out.u32(remap(sub.u32())).name(sub.name());
    } else if (id === 2 || id === 3) {
      const n = sub.u32();
      out.u32(n);
      for (let i = 0; i < n; i++) {
        out.u32(remap(sub.u32()));
        const start = sub.pos;
        const m = sub.u32();
        for (let j = 0; j < m; j++) {
          sub.u32();
          sub.name();
        }
        out.bytes(body.subarray(start, sub.pos));
      }
    } else out.bytes(sub.take(size));
    w.u8(id).u32(out.length).bytes(out.view());
  }
  return w.view().slice();
}

/** Statistics of a rewrite, for the cache's record and the benchmark. */
export interface PreemptStats {
  /** Functions with a check at entry (they may recurse). */
  entries: number;
  /** Loop headers with a check. */
  loops: number;
  /** `memory.grow` instructions routed through the host. */
  grows: number;
  /** `memory.fill` and `memory.copy` instructions done in chunks. */
  bulk: number;
}

/** A function body rewritten without its entry check, and whom it calls. */
interface Body {
  locals: Uint8Array;
  code: Uint8Array;
  /** Defined functions it calls directly, by their index among defined functions. */
  callees: number[];
  indirect: boolean;
}

/**
 * The defined functions that may recurse: those in a cycle of direct calls
 * (Tarjan's strongly connected components, iteratively) and those that call
 * indirectly. Any endless recursion passes through one of them.
 */
function mayRecurse(bodies: Body[]): boolean[] {
  const n = bodies.length;
  const out = bodies.map((b) => b.indirect);
  const index = new Array<number>(n).fill(-1), low = new Array<number>(n).fill(0);
  const onStack = new Array<boolean>(n).fill(false), stack: number[] = [];
  let next = 0;
  for (let root = 0; root < n; root++) {
    if (index[root] >= 0) continue;
    const work: [number, number][] = [[root, 0]];
    index[root] = low[root] = next++;
    stack.push(root);
    onStack[root] = true;
    while (work.length) {
      const top = work[work.length - 1];
      const [v, i] = top;
      const callees = bodies[v].callees;
      if (i < callees.length) {
        top[1]++;
        const w = callees[i];
        if (w === v) out[v] = true; // calls itself
        if (index[w] < 0) {
          index[w] = low[w] = next++;
          stack.push(w);
          onStack[w] = true;
          work.push([w, 0]);
        } else if (onStack[w]) low[v] = Math.min(low[v], index[w]);
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1][0];
        low[parent] = Math.min(low[parent], low[v]);
      }
      if (low[v] === index[v]) {
        const scc: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = false;
          scc.push(w);
        } while (w !== v);
        if (scc.length > 1) { for (const f of scc) out[f] = true; }
      }
    }
  }
  return out;
}

/** A body's rewrite as {@link rewriteCode} keeps it, with what it added to the stats. */
interface Rewrite {
  fn: Body;
  loops: number;
  grows: number;
  bulk: number;
}

/**
 * Bodies rewritten before, for a module built again after an edit
 * (`body_memo.ts`). A kept {@link Body} is shared, never changed: the
 * rewrite reads it and writes new bytes.
 */
const REWRITES = new BodyMemo<Rewrite>();

/** Forgets every kept rewrite (for tests: a module instrumented next is rewritten whole). */
export function clearRewrites(): void {
  REWRITES.clear();
}

function rewriteCode(
  body: Uint8Array,
  edit: ExpressionEdit,
  check: Uint8Array,
  funcImports: number,
  stats: PreemptStats,
  /** Function bodies (locals and code) to add after the defined functions. */
  extra: Uint8Array[],
  /** What a body's rewrite depends on besides its bytes (the added indices): {@link REWRITES}' key. */
  context: string,
): Uint8Array {
  const r = new Reader(body);
  const n = r.u32();
  const bodies: Body[] = [];
  for (let i = 0; i < n; i++) {
    const size = r.u32();
    const end = r.pos + size;
    const f = new Reader(body, r.pos, end);
    r.pos = end;
    const localsStart = f.pos;
    const groups = f.u32();
    for (let g = 0; g < groups; g++) {
      f.u32();
      skipValType(f);
    }
    const whole = body.subarray(localsStart, end);
    const known = REWRITES.get(context, whole);
    if (known) {
      bodies.push(known.fn);
      stats.loops += known.loops;
      stats.grows += known.grows;
      stats.bulk += known.bulk;
      continue;
    }
    const fn: Body = {
      locals: body.slice(localsStart, f.pos),
      code: new Uint8Array(),
      callees: [],
      indirect: false,
    };
    const before = { loops: stats.loops, grows: stats.grows, bulk: stats.bulk };
    const code = new Writer();
    copyExpression(f, code, {
      ...edit,
      onCall: (callee) => {
        if (callee === undefined) fn.indirect = true;
        else if (callee >= funcImports) fn.callees.push(callee - funcImports);
      },
    }, false);
    fn.code = code.view().slice();
    bodies.push(fn);
    REWRITES.set(context, whole, {
      fn,
      loops: stats.loops - before.loops,
      grows: stats.grows - before.grows,
      bulk: stats.bulk - before.bulk,
    }, fn.locals.length + fn.code.length);
  }
  const checked = mayRecurse(bodies);
  const w = new Writer().u32(n + extra.length);
  bodies.forEach((fn, i) => {
    const size = fn.locals.length + (checked[i] ? check.length : 0) + fn.code.length;
    w.u32(size).bytes(fn.locals);
    if (checked[i]) {
      w.bytes(check);
      stats.entries++;
    }
    w.bytes(fn.code);
  });
  for (const e of extra) w.u32(e.length).bytes(e);
  return w.view().slice();
}

/**
 * Instruments a core module (see the module doc). Returns null for a module
 * without code (nothing can loop), and throws a `WasmFormatError` for a
 * module it cannot read; the caller then runs the module as it is.
 */
export function instrumentModule(
  bytes: Uint8Array,
): { bytes: Uint8Array<ArrayBuffer>; stats: PreemptStats } | null {
  const sections = splitSections(bytes);
  const code = sections.find((s) => s.id === SECTION.code);
  if (!code || new Reader(code.body).u32() === 0) return null;
  const shape = shapeOf(sections);
  const fuelType = shape.types, growType = shape.types + 1, bulkType = shape.types + 2;
  const expireType = shape.types + 3;
  const checkFunc = shape.funcImports;
  const yieldFunc = checkFunc + 1, growFunc = checkFunc + 2, bulkImport = checkFunc + 3;
  const fuelGlobal = shape.globalImports + shape.globals, bulkGlobal = fuelGlobal + 1;
  const remap = (i: number) => (i < shape.funcImports ? i : i + 4);
  const defined = new Reader(code.body).u32();
  const fillFunc = shape.funcImports + 4 + defined, copyFunc = fillFunc + 1;
  const expireFunc = fillFunc + 2;

  const check = new Writer()
    .u8(0x23).u32(fuelGlobal) // global.get $fuel
    .u8(0x41).s32(1) // i32.const 1
    .u8(0x6b) // i32.sub
    .u8(0x24).u32(fuelGlobal) // global.set $fuel
    .u8(0x23).u32(fuelGlobal) // global.get $fuel
    .u8(0x45) // i32.eqz
    .u8(0x04).u8(0x40) // if
    .u8(0x10).u32(checkFunc) // call $check
    .u8(0x24).u32(fuelGlobal) // global.set $fuel
    .u8(0x23).u32(fuelGlobal) // global.get $fuel
    .u8(0x45) // i32.eqz
    .u8(0x04).u8(0x40) // if
    .u8(0x10).u32(yieldFunc) // call $yield
    .u8(0x24).u32(fuelGlobal) // global.set $fuel
    .u8(0x0b) // end
    .u8(0x0b) // end
    .view().slice();
  // Without a 32-bit memory 0 nothing calls them: `unreachable` keeps the indices.
  const chunked = shape.memory && !shape.memory64;
  const indices = { fuelGlobal, bulkGlobal, bulkImport, yieldFunc };
  const unused = new Uint8Array([0x00, 0x00, 0x0b]);
  const fill = chunked ? bulkFunction("fill", indices) : unused;
  const copy = chunked ? bulkFunction("copy", indices) : unused;
  // expire(): fuel = 1.
  const expire = new Writer()
    .u32(0) // no locals
    .u8(0x41).s32(1) // i32.const 1
    .u8(0x24).u32(fuelGlobal) // global.set $fuel
    .u8(0x0b) // end
    .view().slice();
  const stats: PreemptStats = { entries: 0, loops: 0, grows: 0, bulk: 0 };
  const edit: ExpressionEdit = {
    funcIndex: remap,
    loopHeader: (w) => {
      w.bytes(check);
      stats.loops++;
    },
    memoryGrow: (w) => {
      w.u8(0x3f).u8(0x00) // memory.size 0
        .u8(0x10).u32(growFunc) // call $grow: the delta, or -1
        .u8(0x40).u8(0x00); // memory.grow 0
      stats.grows++;
    },
    bulkMemory: !chunked ? undefined : (w, op) => {
      w.u8(0x10).u32(op === "fill" ? fillFunc : copyFunc); // call $fill or $copy
      stats.bulk++;
    },
  };

  const types = new Writer()
    .u8(0x60).u32(0).u32(1).u8(0x7f) // () -> i32
    .u8(0x60).u32(2).u8(0x7f).u8(0x7f).u32(1).u8(0x7f) // (i32, i32) -> i32
    .u8(0x60).u32(3).u8(0x7f).u8(0x7f).u8(0x7f).u32(0) // (i32, i32, i32) -> ()
    .u8(0x60).u32(0).u32(0) // () -> ()
    .view().slice();
  const imports = new Writer()
    .name(PREEMPT_MODULE).name(CHECK_IMPORT).u8(0x00).u32(fuelType)
    .name(PREEMPT_MODULE).name(YIELD_IMPORT).u8(0x00).u32(fuelType)
    .name(PREEMPT_MODULE).name(GROW_IMPORT).u8(0x00).u32(growType)
    .name(PREEMPT_MODULE).name(BULK_IMPORT).u8(0x00).u32(fuelType)
    .view().slice();
  const added = new Writer()
    .u8(0x7f).u8(0x01).u8(0x41).s32(INITIAL_FUEL).u8(0x0b) // $fuel
    .u8(0x7f).u8(0x01).u8(0x41).s32(BULK_BYTES).u8(0x0b) // $bulk
    .view().slice();

  const replaced = new Map<number, Uint8Array>();
  const body = (id: number) => sections.find((s) => s.id === id)?.body;
  replaced.set(SECTION.type, appendToVector(body(SECTION.type), 4, types));
  replaced.set(
    SECTION.function,
    appendToVector(
      body(SECTION.function),
      3,
      new Writer().u32(bulkType).u32(bulkType).u32(expireType).view().slice(),
    ),
  );
  replaced.set(SECTION.import, appendToVector(body(SECTION.import), 4, imports));
  replaced.set(SECTION.global, rewriteGlobals(body(SECTION.global), edit, added));
  replaced.set(SECTION.export, rewriteExports(body(SECTION.export), remap, expireFunc));
  replaced.set(
    SECTION.code,
    rewriteCode(
      code.body,
      edit,
      check,
      shape.funcImports,
      stats,
      [fill, copy, expire],
      [
        shape.funcImports,
        fuelGlobal,
        growFunc,
        fillFunc,
        copyFunc,
        chunked,
      ].join(),
    ),
  );
  const start = body(SECTION.start);
  if (start) {
    replaced.set(SECTION.start, new Writer().u32(remap(new Reader(start).u32())).view().slice());
  }
  const elements = body(SECTION.element);
  if (elements) replaced.set(SECTION.element, rewriteElements(elements, edit));

  const out = joinSections(
    sections,
    replaced,
    (b) => new Reader(b).name() === "name" ? rewriteNames(b, remap) : b,
  );
  return { bytes: out, stats };
}
