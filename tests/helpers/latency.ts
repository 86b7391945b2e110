/**
 * Latency bounds for tests that run beside other work: quantiles of sorted
 * samples, and the machine's load per core to scale a bound by.
 *
 * @module
 */

/** The `q` quantile (0..1) of ascending `sorted` samples. */
export function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/**
 * The machine's load average per core (1-minute), at least 1: a latency
 * bound is for a machine not busy with other work; under a load of L on C
 * cores a runnable thread gets about C/L of a core, so the bound scales by it.
 */
export function loadFactor(): { load: number; factor: number } {
  const load = Number(Deno.readTextFileSync("/proc/loadavg").split(" ")[0]);
  const cores = navigator.hardwareConcurrency || 1;
  return { load, factor: Math.max(1, load / cores) };
}
