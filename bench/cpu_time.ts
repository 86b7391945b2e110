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
