/**
 * Locks (section 7): advisory, keyed by the normalised path string, granted
 * in FIFO order. When a process ends, by any means, the core releases its
 * locks and removes it from every queue.
 *
 * @module
 */

import { HostError } from "../../rpc/errors.ts";
import { optionalParam, stringParam } from "../../rpc/params.ts";
import type { Caller } from "../processes/process.ts";
import type { CoreMethod } from "../calls/core_method.ts";

/** Normalises a lock path: absolute, no `.`, `..` or repeated slashes. */
export function normaliseLockPath(path: string): string {
  if (path.trim() === "") throw new HostError("invalid-params", `"path" must not be empty`);
  const parts: string[] = [];
  for (const seg of path.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") parts.pop();
    else parts.push(seg);
  }
  return "/" + parts.join("/");
}

interface Waiter {
  pid: string;
  since: number;
  grant: () => void;
}

interface Lock {
  owner: string;
  since: number;
  waiters: Waiter[];
}

/** What `/proc/core/locks.json` shows. */
export interface LocksSnapshot {
  locks: {
    path: string;
    owner: string;
    since: string;
    waiters: { pid: string; since: string }[];
  }[];
}

/** The held locks and their queues. */
export class LockTable {
  private locks = new Map<string, Lock>();
  private byOwner = new Map<string, Set<string>>();

  private take(path: string, pid: string): void {
    const held = this.locks.get(path);
    if (held) {
      held.owner = pid;
      held.since = Date.now();
    } else this.locks.set(path, { owner: pid, since: Date.now(), waiters: [] });
    let set = this.byOwner.get(pid);
    if (!set) this.byOwner.set(pid, set = new Set());
    set.add(path);
  }

  /** Takes the lock, waiting in FIFO order unless `wait` is false. Resolves with whether it is held. */
  lock(pid: string, rawPath: string, wait = true): Promise<{ held: boolean }> {
    const path = normaliseLockPath(rawPath);
    const lock = this.locks.get(path);
    if (!lock) {
      this.take(path, pid);
      return Promise.resolve({ held: true });
    }
    if (lock.owner === pid) return Promise.resolve({ held: true });
    if (!wait) return Promise.resolve({ held: false });
    return new Promise((resolve) => {
      lock.waiters.push({ pid, since: Date.now(), grant: () => resolve({ held: true }) });
    });
  }

  /** Releases a lock held by `pid`; the next waiter gets it. */
  unlock(pid: string, rawPath: string): void {
    const path = normaliseLockPath(rawPath);
    const lock = this.locks.get(path);
    if (!lock || lock.owner !== pid) {
      throw new HostError("invalid-params", `${pid} does not hold the lock ${path}`);
    }
    this.release(path, lock);
  }

  private release(path: string, lock: Lock): void {
    this.byOwner.get(lock.owner)?.delete(path);
    const next = lock.waiters.shift();
    if (!next) {
      this.locks.delete(path);
      return;
    }
    this.take(path, next.pid);
    next.grant();
  }

  /** Releases every lock of `pid` and removes it from every queue (the process ended). */
  releaseAll(pid: string): void {
    for (const lock of this.locks.values()) {
      lock.waiters = lock.waiters.filter((w) => w.pid !== pid);
    }
    const held = this.byOwner.get(pid);
    this.byOwner.delete(pid);
    for (const path of held ?? []) {
      const lock = this.locks.get(path);
      if (lock && lock.owner === pid) this.release(path, lock);
    }
  }

  /** Held locks and waiters in order, for `/proc/core/locks.json`. */
  snapshot(): LocksSnapshot {
    const iso = (ms: number) => new Date(ms).toISOString();
    return {
      locks: [...this.locks].map(([path, l]) => ({
        path,
        owner: l.owner,
        since: iso(l.since),
        waiters: l.waiters.map((w) => ({ pid: w.pid, since: iso(w.since) })),
      })),
    };
  }
}

function owner(caller: Caller): string {
  if (!("pid" in caller)) {
    throw new HostError(
      "invalid-request",
      "locks belong to processes: call core.lock from a plugin",
    );
  }
  return caller.name;
}

/** `core.lock` and `core.unlock` over a lock table. */
export function lockMethods(locks: LockTable): Map<string, CoreMethod> {
  return new Map<string, CoreMethod>([
    ["lock", (caller, params) => {
      const wait = optionalParam(params, "wait", "boolean") ?? true;
      return locks.lock(owner(caller), stringParam(params, "path"), wait);
    }],
    ["unlock", (caller, params) => {
      locks.unlock(owner(caller), stringParam(params, "path"));
      return {};
    }],
  ]);
}
