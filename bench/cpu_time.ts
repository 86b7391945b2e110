/**
 * CPU time of this process and of its descendants (sandboxes), from
 * `/proc`: what a benchmark quotes beside wall time, since wall time on a
 * shared machine mostly measures the neighbours.
 *
 * @module
 */

/** Clock ticks per second of `/proc/<pid>/stat` (`getconf CLK_TCK`, 100 on Linux). */
const TICKS = 100;

/** CPU ms (user + system) of what a `/proc/…/stat` file describes, or 0 when it is gone. */
function statCpuMs(path: string): number {
  try {
    const stat = Deno.readTextFileSync(path);
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) * 1000 / TICKS;
  } catch {
    return 0;
  }
}

/** CPU ms (user + system) of one process, or 0 when it is gone. */
function cpuMs(pid: number): number {
  return statCpuMs(`/proc/${pid}/stat`);
}

/** CPU ms (user + system) of the calling thread so far. */
export function threadCpuMs(): number {
  return statCpuMs("/proc/thread-self/stat");
}

/**
 * CPU ms so far of this process's threads, by kind: the main thread (the
 * event loop), the workers (Deno names their threads `worker-…`; the
 * journal's), and the rest (V8's helpers, Deno's pools).
 */
export function threadsCpuMs(): { loop: number; worker: number; other: number } {
  const t = { loop: 0, worker: 0, other: 0 };
  for (const e of Deno.readDirSync("/proc/self/task")) {
    let name: string;
    try {
      const stat = Deno.readTextFileSync(`/proc/self/task/${e.name}/stat`);
      name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    } catch {
      continue; // gone
    }
    const ms = statCpuMs(`/proc/self/task/${e.name}/stat`);
    if (Number(e.name) === Deno.pid) t.loop += ms;
    else if (name.startsWith("worker")) t.worker += ms;
    else t.other += ms;
  }
  return t;
}

/** The pids whose parent is `pid`. */
function children(pid: number): number[] {
  try {
    return Deno.readTextFileSync(`/proc/${pid}/task/${pid}/children`).trim().split(/\s+/)
      .filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** CPU ms so far: this process, and all its descendants. */
export function cpuNow(): { host: number; sandboxes: number } {
  let sandboxes = 0;
  const todo = children(Deno.pid);
  while (todo.length) {
    const p = todo.pop()!;
    sandboxes += cpuMs(p);
    todo.push(...children(p));
  }
  return { host: cpuMs(Deno.pid), sandboxes };
}
