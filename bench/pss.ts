/**
 * Memory as benchmarks quote it: the PSS of this process and its children
 * (the sandboxes), from `/proc/<pid>/smaps_rollup`.
 *
 * @module
 */

/** PSS in MiB of this process and every child (the sandboxes). */
export function pssMiB(): number {
  const pids = [Deno.pid];
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${e.name}/stat`);
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === Deno.pid) {
        pids.push(Number(e.name));
      }
    } catch { /* gone */ }
  }
  let kib = 0;
  for (const pid of pids) {
    try {
      const m = Deno.readTextFileSync(`/proc/${pid}/smaps_rollup`).match(/^Pss:\s+(\d+) kB/m);
      kib += Number(m?.[1] ?? 0);
    } catch { /* gone */ }
  }
  return kib / 1024;
}
