/**
 * The sandbox thread's turns of the event loop, which guests' time slices
 * and fair starts count by (DECISIONS.md, "Many processes per sandbox"): a
 * clock that makes sure the next turn is seen, and the way to run something
 * after pending I/O and the other guests.
 *
 * @module
 */

/**
 * How long the guests run before the event loop gets a turn, in ms. With 5
 * ms, a no-op call beside two spinners waited p50 11.7 ms; with 2 ms, p50
 * 2.0 ms (bench/colocation.ts).
 */
export const SLICE_MS = 2;

/** Turns of the event loop seen (a `setImmediate` counts them while guests run; so does each step of the line below). */
export let turn = 0;
/** A turn counter is scheduled. */
let watching = false;

/** The time now (ms); makes sure the next turn of the event loop is seen. */
export function clock(): number {
  if (!watching) {
    watching = true;
    setImmediate(() => {
      watching = false;
      turn++;
    });
  }
  return performance.now();
}

/**
 * How long the line runs between two looks at I/O (ms): a call's frame from
 * the core waits at most this, plus one slice, whatever number of guests
 * spin beside it.
 */
export const PARK_MS = SLICE_MS;

/**
 * Steps in a row the young line may take while the old one waits: past
 * it, one old waiter goes, so young work cannot starve the guests that have
 * run longest (a multi-level queue's boost).
 */
const YOUNG_RUN = 4;

/** Waiters that have had few turns (starts, guests young in CPU): they go first. */
const young: (() => void)[] = [];
/** The other waiters (guests that have used many slices, chunked host work), in order. */
const old: (() => void)[] = [];
/** Young steps taken in a row while old waiters waited. */
let youngRun = 0;
/** The line is being worked through. */
let stepping = false;
/** When I/O was last looked at by the line. */
let parkedAt = 0;

/**
 * Runs `f` in a turn of its own, with I/O (the pipe to the core, sockets)
 * looked at in between: one waiter gets the thread per step, and at least
 * every {@link PARK_MS} the steps stop until the event loop has polled I/O
 * ({@link park}). Waiters marked `young` (a start, a guest that has had few
 * slices) go before the others, {@link YOUNG_RUN} at most in a row: a short
 * call's process waits one slice, not one per spinning neighbour.
 *
 * Deno runs a chain of `setImmediate` callbacks without polling I/O for
 * about 60 of them: six spinners each yielding by `setImmediate` kept a
 * socket's echo waiting 2.1 s at p50 (one per step, 0.37 s; with the park,
 * 7–10 ms), and beside the sandbox's spinners a no-op call waited 240–550
 * ms at p90 (DECISIONS.md, "A turn for I/O"). A `MessageChannel` message
 * starved the pipe too; `setTimeout(0)` takes 2.5 ms here.
 */
export function nextTurn(f: () => void, isYoung = false): void {
  (isYoung ? young : old).push(f);
  if (stepping) return;
  stepping = true;
  setImmediate(step);
}

/** One step: a park when I/O was not looked at for {@link PARK_MS}, then one waiter. */
function step(): void {
  if (performance.now() - parkedAt < PARK_MS) return next();
  park().then(() => {
    parkedAt = performance.now();
    next();
  });
}

/** Lets the next waiter go, in a turn of its own (a fresh slice), and schedules the next step. */
function next(): void {
  let f: (() => void) | undefined;
  if (young.length && (youngRun < YOUNG_RUN || !old.length)) {
    f = young.shift();
    youngRun = old.length ? youngRun + 1 : 0;
  } else {
    f = old.shift();
    youngRun = 0;
  }
  if (f === undefined) {
    stepping = false;
    return;
  }
  turn++;
  f();
  if (young.length || old.length) setImmediate(step);
  else stepping = false;
}

/** The two ends of a loopback connection that {@link park} reads and writes; made at the first park. */
let pair: Promise<{ reader: Deno.Conn; writer: Deno.Conn } | null> | undefined;
const ONE = new Uint8Array(1);
const INTO = new Uint8Array(64);

/**
 * Resolves once the event loop has polled I/O: a read on a loopback
 * connection, then the write that ends it, so the loop has nothing to run
 * but to wait for the socket (~25 µs on this thread, no other thread
 * involved; an fs op, 18 µs quiet, waits for a pool thread: 0.4–0.7 ms
 * under load). Without the network, a `setTimeout(0)`.
 */
function park(): Promise<unknown> {
  pair ??= loopback();
  return pair.then((p) => {
    if (!p) return new Promise((r) => setTimeout(r, 0));
    const read = p.reader.read(INTO);
    p.writer.write(ONE).catch(() => {});
    return read;
  });
}

/** Connects a loopback pair (null when the sandbox may not listen). */
async function loopback(): Promise<{ reader: Deno.Conn; writer: Deno.Conn } | null> {
  try {
    const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const [writer, reader] = await Promise.all([
        Deno.connect({ hostname: "127.0.0.1", port: l.addr.port }),
        l.accept(),
      ]);
      writer.setNoDelay(true);
      return { reader, writer };
    } finally {
      l.close();
    }
  } catch {
    return null;
  }
}
