/**
 * One host per world: an OS lock (`flock`, through `Deno.FsFile.tryLock`) on
 * `state/core/host.lock`, taken by every host, transient ones included, before
 * anything else (before the journal is opened), and held until the host has
 * closed everything. The kernel releases it when the holder's process ends,
 * however it ends, so a lock is never stale: a host that was killed leaves a
 * lock file that the next host simply locks again.
 *
 * The holder writes who it is into the file (its pid, its command, since
 * when, whether it is transient) so that another command can say who holds
 * the world. The file is read without the lock: a half-written one reads as
 * an unknown holder.
 *
 * @module
 */

import type { World } from "../world/world.ts";

/** The world-relative path of the lock file. */
export const HOST_LOCK_FILE = "state/core/host.lock";

/**
 * How long a held lock whose file names nobody is taken for one in flight
 * (a holder writing its line, a release not yet seen) rather than a holder.
 */
const UNKNOWN_HOLDER_MS = 1000;

/** Blocks the thread for `ms` (the host's constructor is synchronous). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** What the lock file says about its holder. */
export interface LockHolder {
  /** The OS pid of the holding process. */
  pid: number;
  /** The command that holds it (`sausage run`, `sausage call`, a test). */
  command: string;
  /** When it took the lock (ISO 8601). */
  since: string;
  /**
   * True for a host that ends by itself once its command is done (`sausage
   * call`, `build`, `methods`, `ls`, `cat`): `sausage run` waits for it.
   */
  transient: boolean;
}

/** Thrown when another host holds the world. */
export class WorldLockedError extends Error {
  /**
   * @param root the world's folder
   * @param holder who holds it, when the lock file says so
   */
  constructor(readonly root: string, readonly holder: LockHolder | null) {
    super(`another host runs ${root}: ${describeHolder(holder)}; stop it first`);
    this.name = "WorldLockedError";
  }
}

/** One line about a holder: `pid 123 (sausage run) since 2026-…`. */
export function describeHolder(holder: LockHolder | null): string {
  if (!holder) return `its lock ${HOST_LOCK_FILE} does not say which process holds it`;
  return `pid ${holder.pid} (${holder.command}${holder.transient ? ", transient" : ""}) ` +
    `since ${holder.since}`;
}

/** The default command of a holder: the CLI's subcommand, or the script that made the host. */
export function defaultCommand(): string {
  return Deno.args[0] && !Deno.args[0].startsWith("-")
    ? `sausage ${Deno.args[0]}`
    : `deno ${Deno.mainModule}`;
}

/** The held lock of a world. */
export class HostLock {
  private released = false;

  private constructor(private file: Deno.FsFile | null, readonly path: string) {}

  /**
   * No lock at all, for a world that only the host's maker can reach (the
   * test runner's private world of one test, which must stay empty): nothing
   * is written in it.
   */
  static none(): HostLock {
    return new HostLock(null, "");
  }

  /**
   * Takes the lock of `world` when nobody holds it, and writes `who` into it.
   * Returns null when another process (or another open host in this process)
   * holds it.
   */
  static tryTake(world: World, who: Omit<LockHolder, "pid" | "since">): HostLock | null {
    world.coreState();
    const path = `${world.root}/${HOST_LOCK_FILE}`;
    const file = Deno.openSync(path, { read: true, write: true, create: true, mode: 0o600 });
    let locked = false;
    try {
      locked = file.tryLockSync(true);
    } finally {
      if (!locked) file.close();
    }
    if (!locked) return null;
    const holder: LockHolder = {
      pid: Deno.pid,
      command: who.command,
      since: new Date().toISOString(),
      transient: who.transient,
    };
    file.truncateSync(0);
    const bytes = new TextEncoder().encode(JSON.stringify(holder) + "\n");
    let done = 0;
    while (done < bytes.length) done += file.writeSync(bytes.subarray(done));
    return new HostLock(file, path);
  }

  /**
   * Takes the lock of `world`, or throws `WorldLockedError` saying who holds
   * it. A lock whose file names nobody is tried again for up to
   * `UNKNOWN_HOLDER_MS`: its holder is still writing its line, or has just
   * released it while a process another thread of ours was starting still
   * shared the descriptor (a fork holds every open file until its `exec`;
   * seen in CI as a host opened right after another's shutdown, refused).
   */
  static take(world: World, who: Omit<LockHolder, "pid" | "since">): HostLock {
    const until = Date.now() + UNKNOWN_HOLDER_MS;
    for (;;) {
      const lock = HostLock.tryTake(world, who);
      if (lock) return lock;
      const holder = HostLock.holder(world);
      if (holder || Date.now() > until) throw new WorldLockedError(world.root, holder);
      sleepSync(10);
    }
  }

  /**
   * Takes the lock of `world` for a lasting host (`sausage run`, `dev`):
   * waits while a transient host holds it (it ends with its command; `report`
   * hears once that it waits), and throws `WorldLockedError` when a lasting
   * host holds it.
   */
  static async takeLasting(
    world: World,
    command: string,
    report: (line: string) => void = () => {},
  ): Promise<HostLock> {
    let unknownSince: number | null = null;
    let told = false;
    for (;;) {
      const lock = HostLock.tryTake(world, { command, transient: false });
      if (lock) return lock;
      const holder = HostLock.holder(world);
      // A holder that has not written its line yet is given a second to.
      unknownSince = holder ? null : unknownSince ?? Date.now();
      if (holder ? !holder.transient : Date.now() - unknownSince! > UNKNOWN_HOLDER_MS) {
        throw new WorldLockedError(world.root, holder);
      }
      if (holder && !told) {
        told = true;
        report(`sausage: waiting for ${describeHolder(holder)} to finish with ${world.root}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Who holds the lock of `world`, as its file says (null when unreadable). */
  static holder(world: World): LockHolder | null {
    try {
      const v = JSON.parse(Deno.readTextFileSync(`${world.root}/${HOST_LOCK_FILE}`));
      if (typeof v?.pid === "number" && typeof v.command === "string") return v as LockHolder;
    } catch { /* missing or half-written */ }
    return null;
  }

  /** Releases the lock (the file stays: the next host locks it again). */
  release(): void {
    if (this.released) return;
    this.released = true;
    if (!this.file) return;
    try {
      this.file.truncateSync(0);
    } catch { /* a full disk: the lock still goes with the file's close */ }
    this.file.close();
  }
}
