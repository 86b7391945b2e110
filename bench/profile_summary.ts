/**
 * Summarises a V8 CPU profile (`deno run --cpu-prof`): self time by
 * function, as a share of the busy samples (not `(idle)`), with each top
 * function's heaviest callers, and the share under each of a few named
 * functions (inclusive).
 *
 *   deno run --allow-read bench/profile_summary.ts CPU.x.cpuprofile [--top 25] [--skip-ms 0]
 *
 * A V8 profile samples wall-clock time on the thread: a function waiting in
 * a system call for a CPU (a write that wakes another process, on a machine
 * of 2 cores) counts as busy. `perf record` beside it measures CPU only.
 *
 * `--skip-ms` leaves out the first milliseconds of the profile (start and
 * warm-up), so that a run's steady state is what is summarised.
 *
 * @module
 */

/** A node of a `.cpuprofile`. */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** A `.cpuprofile`: the call tree, the sampled node of each tick and the ticks' spacing (µs). */
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function arg(name: string, fallback: number): number {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Number(Deno.args[i + 1]) : fallback;
}

function label(n: ProfileNode): string {
  const f = n.callFrame;
  const file = f.url.replace(/^.*\/(?=[^/]+\/[^/]+$)/, "");
  return `${f.functionName || "(anonymous)"}${file ? ` ${file}:${f.lineNumber + 1}` : ""}`;
}

const file = Deno.args.find((a) => a.endsWith(".cpuprofile"));
if (!file) throw new Error("usage: profile_summary.ts <file.cpuprofile> [--top N] [--skip-ms MS]");
const top = arg("--top", 25);
const skipMs = arg("--skip-ms", 0);
const p: Profile = JSON.parse(await Deno.readTextFile(file));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const selfByNode = new Map<number, number>();
let t = 0, busy = 0, idle = 0;
for (let i = 0; i < p.samples.length; i++) {
  t += p.timeDeltas[i] ?? 0;
  if (t < skipMs * 1000) continue;
  const n = byId.get(p.samples[i])!;
  const name = n.callFrame.functionName;
  if (name === "(idle)") {
    idle++;
    continue;
  }
  busy++;
  selfByNode.set(n.id, (selfByNode.get(n.id) ?? 0) + 1);
}

const selfByLabel = new Map<string, number>();
const callers = new Map<string, Map<string, number>>();
const inclusive = new Map<string, number>();
for (const [id, count] of selfByNode) {
  const n = byId.get(id)!;
  const l = label(n);
  selfByLabel.set(l, (selfByLabel.get(l) ?? 0) + count);
  // The chain of callers, up to three, as one string.
  const chain: string[] = [];
  const seen = new Set<string>();
  for (let q = parent.get(id); q !== undefined; q = parent.get(q)) {
    const ql = label(byId.get(q)!);
    if (chain.length < 3) chain.push(ql);
    if (!seen.has(ql)) {
      seen.add(ql);
      inclusive.set(ql, (inclusive.get(ql) ?? 0) + count);
    }
  }
  if (!seen.has(l)) inclusive.set(l, (inclusive.get(l) ?? 0) + count);
  const m = callers.get(l) ?? new Map<string, number>();
  const key = chain.join(" < ");
  m.set(key, (m.get(key) ?? 0) + count);
  callers.set(l, m);
}

const pct = (c: number) => `${(100 * c / busy).toFixed(1).padStart(5)} %`;
console.log(`${file}: ${busy} busy samples, ${idle} idle (after ${skipMs} ms)`);
console.log("\nself time:");
for (const [l, c] of [...selfByLabel].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`${pct(c)}  ${l}`);
  const m = [...callers.get(l)!].sort((a, b) => b[1] - a[1]).slice(0, 2);
  for (const [chain, cc] of m) console.log(`          ${pct(cc)} < ${chain}`);
}
console.log("\ninclusive (top):");
for (const [l, c] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`${pct(c)}  ${l}`);
}
