/**
 * The sandbox pool: a few sandbox subprocesses (by default one per core),
 * each running many processes, plus a pre-started spare. A new process goes
 * to the sandbox that runs the fewest; a sandbox that is lost (crashed,
 * killed for a stall) is replaced by the spare at once, and a new spare
 * starts in the background. Bounded: never more than the size plus the
 * spare exist, and replacements are rate-limited (`REPLACE_INTERVAL_MS`),
 * each journaled with its reason.
 *
 * @module
 */

import { Sandbox, type SandboxOptions } from "./sandbox.ts";

export type { SandboxOptions } from "./sandbox.ts";

/** How long after the sandboxes the spare starts (a replacement needs none before). */
const SPARE_DELAY_MS = 1000;

/**
 * Replacements of lost sandboxes are rate-limited: a burst of as many as the
 * pool holds (with its spare) at once, then one per this many ms. Sandboxes
 * lost faster than that (a guest that kills each one, a machine out of
 * memory) wait for their replacement rather than multiply.
 */
export const REPLACE_INTERVAL_MS = 1000;

/** Hears the pool's events worth journaling: a replacement, with its reason. */
export type PoolEvents = (event: string, fields: Record<string, unknown>) => void;

/**
 * Starts, places on and replaces sandboxes. However many calls wait and
 * however many sandboxes are lost, at most `size + 1` sandbox subprocesses
 * exist at once (the ones that run processes, and the spare), counted from
 * their start to their exit.
 */
export class SandboxPool {
  private live: Sandbox[] = [];
  private spare: Promise<Sandbox> | null = null;
  private warming: Promise<void> | null = null;
  private refilling: Promise<void> | null = null;
  private closed = false;
  /** Every sandbox subprocess from its start to its exit: never more than `bound`. */
  private existing = new Set<Sandbox>();
  /** Replacement tokens (`REPLACE_INTERVAL_MS`), and when they were last counted. */
  private tokens: number;
  private tokensAt = Date.now();
  /** Why the last sandbox was lost or failed to start, for the error when none is left. */
  private lastLoss: string | null = null;

  /**
   * @param opts how to start sandboxes
   * @param size how many sandboxes run processes (default: one per core)
   * @param events hears each replacement and its reason (the journal's `sandbox-replaced`)
   */
  constructor(
    private opts: SandboxOptions,
    private size = navigator.hardwareConcurrency || 1,
    private events: PoolEvents = () => {},
  ) {
    if (!Number.isInteger(size) || size < 1) throw new Error("a pool needs at least one sandbox");
    this.tokens = size + 1;
  }

  /** The most sandbox subprocesses that exist at once: the pool's size and the spare. */
  get bound(): number {
    return this.size + 1;
  }

  /** How many sandbox subprocesses exist now (started and not yet exited). */
  get count(): number {
    return this.existing.size;
  }

  /** How many sandboxes in the pool can take processes. */
  private serving(): number {
    let n = 0;
    for (const sb of this.live) if (!sb.hasEnded) n++;
    return n;
  }

  /** Waits until one more sandbox may start without passing the bound. */
  private async slot(): Promise<void> {
    while (this.existing.size >= this.bound && !this.closed) {
      await Promise.race([...this.existing].map((sb) => sb.ended));
    }
  }

  private async startOne(): Promise<Sandbox> {
    await this.slot();
    if (this.closed) throw new Error("the host is shutting down");
    const sb = new Sandbox(this.opts);
    this.existing.add(sb);
    sb.ended.then(() => this.existing.delete(sb));
    const why = await Promise.race([sb.ready.then(() => null), sb.ended]);
    if (why !== null) {
      this.lastLoss = `a sandbox failed to start: ${why}`;
      throw new Error(`${this.lastLoss} (see the host's stderr)`);
    }
    if (this.closed) sb.kill("the host is shutting down");
    return sb;
  }

  private adopt(sb: Sandbox): void {
    if (this.closed) return sb.kill("the host is shutting down");
    if (this.serving() >= this.size) {
      // One too many (a replacement raced a warm-up): it serves as the spare, or goes.
      if (!this.spare) this.spare = Promise.resolve(sb);
      else sb.kill("the pool is full");
      return;
    }
    this.live.push(sb);
    sb.ended.then((why) => {
      this.lastLoss = `a sandbox was lost: ${why}`;
      this.live = this.live.filter((s) => s !== sb);
      if (!this.closed && this.live.length < this.size) {
        this.refill(`a sandbox was lost: ${why}`).catch(() => {});
      }
    });
  }

  /** Waits for a replacement token (`REPLACE_INTERVAL_MS`); resolves with the ms waited. */
  private async token(): Promise<number> {
    const began = Date.now();
    for (;;) {
      const now = Date.now();
      this.tokens = Math.min(this.bound, this.tokens + (now - this.tokensAt) / REPLACE_INTERVAL_MS);
      this.tokensAt = now;
      if (this.tokens >= 1 || this.closed) {
        this.tokens -= 1;
        return now - began;
      }
      await new Promise((r) => setTimeout(r, (1 - this.tokens) * REPLACE_INTERVAL_MS));
    }
  }

  /**
   * Brings the pool back to its size: one refill at a time, however many
   * callers and losses ask for it; each replacement (the spare if there is
   * one, else a new sandbox) waits for its token and is journaled with its
   * reason; then a new spare.
   */
  private refill(reason: string): Promise<void> {
    this.refilling ??= (async () => {
      try {
        // Sandboxes being killed still count until they exit (`slot`), but serve no more.
        while (!this.closed && this.serving() < this.size) {
          const waited = await this.token();
          if (this.closed) break;
          const next = this.spare ?? this.startOne();
          const fromSpare = this.spare !== null;
          this.spare = null;
          this.adopt(await next);
          this.events("sandbox-replaced", {
            reason,
            spare: fromSpare,
            waited_ms: waited,
            sandboxes: this.existing.size,
          });
        }
      } finally {
        this.refilling = null;
      }
      this.topUpSpare();
    })();
    return this.refilling;
  }

  private topUpSpare(): void {
    if (this.closed || this.spare) return;
    const spare = this.startOne();
    spare.catch(() => {
      if (this.spare === spare) this.spare = null;
    });
    this.spare = spare;
  }

  /**
   * Starts the sandboxes: one at once, the others when it is ready, the
   * spare a second later. Resolves as soon as one sandbox can run processes:
   * on 2 cores, sandboxes starting side by side (~0.1 s of CPU each) slowed
   * each other and a host's first call. Rejects only when the first could
   * not start; one of the others that fails is started again by the next
   * `warm()` (from `place()`).
   */
  warm(): Promise<void> {
    this.warming ??= (async () => {
      const missing = this.size - this.live.length;
      if (missing <= 0) return;
      const adopt = (sb: Sandbox) => {
        if (!this.closed) this.adopt(sb);
      };
      adopt(await this.startOne());
      const others = Array.from({ length: missing - 1 }, () => this.startOne().then(adopt));
      Promise.allSettled(others).then((outcomes) => {
        if (outcomes.some((o) => o.status === "rejected")) this.warming = null;
        const timer = setTimeout(() => this.topUpSpare(), SPARE_DELAY_MS);
        Deno.unrefTimer(timer);
      });
    })();
    this.warming.catch(() => (this.warming = null));
    return this.warming;
  }

  /** The sandbox for a new process: the first of those that run the fewest (`leastLoaded`). */
  async place(): Promise<Sandbox> {
    if (this.closed) throw new Error("the host is shutting down");
    await this.warm();
    // A replacement can be lost before it is used (a machine out of memory
    // kills several at once): try a few before giving up.
    for (let attempt = 0; attempt < 3; attempt++) {
      const best = this.leastLoaded();
      if (best) return best;
      if (this.closed) break;
      await this.refill(this.lastLoss ?? "no sandbox was running").catch(() => {});
    }
    const best = this.leastLoaded();
    if (best) return best;
    throw new Error(
      `no sandbox could be started: ${this.lastLoss ?? "none is running"} (see the host's stderr)`,
    );
  }

  /**
   * The first sandbox that runs at most one process more than the least
   * loaded one. Not strictly the least loaded: a process that has answered
   * still counts until it exits, so with one caller strict balance sent
   * every call to the other, idle sandbox, and a call took 1.35-1.41 ms
   * instead of 0.86-0.90 (a warm sandbox, its caches and its memory pool).
   */
  private leastLoaded(): Sandbox | null {
    let least = Infinity;
    for (const sb of this.live) if (!sb.hasEnded) least = Math.min(least, sb.load);
    return this.live.find((sb) => !sb.hasEnded && sb.load <= least + 1) ?? null;
  }

  /** The sandboxes that run processes now (for `ps`-like views and tests). */
  get sandboxes(): readonly Sandbox[] {
    return this.live;
  }

  /** Kills every sandbox and refuses new work. */
  close(): void {
    this.closed = true;
    for (const sb of this.live) sb.kill("the host is shutting down");
    this.live = [];
    this.spare?.then((sb) => sb.kill("the host is shutting down"), () => {});
    this.spare = null;
  }
}
