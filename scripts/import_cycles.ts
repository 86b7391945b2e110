/**
 * Finds import cycles in the program, between files and between folders,
 * from `deno info --json` of its entry points: static and dynamic imports
 * of the repository's own files (type-only imports, erased when the
 * program runs, and npm packages left out), and the modules loaded later
 * (`core/load_later.ts`: `loadLater<typeof import("./x.ts")>`, which
 * `deno info` sees only as a type import). A folder is a file's top-level
 * folder (`core/cargo/x.ts` is in `core`); the root's files (`main.ts`,
 * `deno.json`) are in none.
 *
 * Usage: `deno run --allow-all scripts/import_cycles.ts [--depth N] [--types] [entry.ts ...]`
 * (default: the entry points of {@link ENTRIES}, top-level folders, value
 * imports); exits 1 and names the cycles when there are any. `--depth 2`
 * takes a file's folder as its first two levels (`core/cargo/x.ts` is in
 * `core/cargo`, `core/host.ts` in `core`), and `--types` counts type-only
 * imports too: the check the floors of `core/` are meant to pass (issue
 * 39), which `npm test` does not run yet.
 *
 * @module
 */

/** The program's entry points: the CLI, the sandbox, the journal's worker. */
export const ENTRIES = ["main.ts", "sandbox/main.ts", "core/journal/journal_worker.ts"];

/** Imports by file: each repository-relative file and the files it imports. */
export type ImportGraph = Map<string, Set<string>>;

/** The repository root (this file's parent folder's parent). */
const ROOT = new URL("..", import.meta.url).pathname;

interface InfoModule {
  specifier: string;
  kind?: string;
  /** `code`: a value import; a type-only import has only `type`. */
  dependencies?: { code?: { specifier: string }; type?: { specifier: string } }[];
}

/** Which imports a graph holds. */
export interface GraphOptions {
  /** Type-only imports too (erased when the program runs, but still a dependency of its source). */
  types?: boolean;
}

/** The imports among the repository's own files reachable from `entries` (relative to `root`). */
export async function importGraph(
  entries: string[],
  root = ROOT,
  opts: GraphOptions = {},
): Promise<ImportGraph> {
  const deno = Deno.execPath();
  const graph: ImportGraph = new Map();
  const own = (specifier: string): string | undefined => {
    if (!specifier.startsWith("file://")) return undefined;
    const path = new URL(specifier).pathname;
    if (!path.startsWith(root) || path.includes("/node_modules/")) return undefined;
    return path.slice(root.length);
  };
  for (const entry of entries) {
    const out = await new Deno.Command(deno, {
      args: ["info", "--json", entry],
      cwd: root,
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) {
      throw new Error(`deno info ${entry}: ${new TextDecoder().decode(out.stderr)}`);
    }
    const info = JSON.parse(new TextDecoder().decode(out.stdout)) as { modules: InfoModule[] };
    for (const m of info.modules) {
      const from = own(m.specifier);
      if (!from) continue;
      const to = graph.get(from) ?? new Set<string>();
      graph.set(from, to);
      for (const d of m.dependencies ?? []) {
        for (const dep of opts.types ? [d.code, d.type] : [d.code]) {
          const target = dep === undefined ? undefined : own(dep.specifier);
          if (target && target !== from) to.add(target);
        }
      }
    }
  }
  for (const [from, to] of graph) {
    for (const target of loadedLater(root, from)) if (graph.has(target)) to.add(target);
  }
  return graph;
}

/** A module's `loadLater<typeof import("./x.ts")>` (or `later<...>`): the files it loads later. */
const LATER = /\b(?:loadLater|later)<typeof import\("(\.[^"]+)"\)>/g;

/** The files (relative to `root`) that `file` loads later (`core/load_later.ts`). */
function loadedLater(root: string, file: string): string[] {
  let text: string;
  try {
    text = Deno.readTextFileSync(`${root}${file}`);
  } catch {
    return [];
  }
  return [...text.matchAll(LATER)].map((m) =>
    new URL(m[1], `file://${root}${file}`).pathname.slice(root.length)
  );
}

/**
 * The folder of a file, `depth` levels deep at most (`core/cargo/x.ts`:
 * `core` at depth 1, `core/cargo` at 2; `core/host.ts`: `core`); null for
 * the root's files.
 */
export function folderOf(file: string, depth = 1): string | null {
  const parts = file.split("/").slice(0, -1);
  return parts.length === 0 ? null : parts.slice(0, depth).join("/");
}

/** The graph of folders (`depth` levels deep): an edge where a file of one imports a file of another. */
export function folderGraph(files: ImportGraph, depth = 1): ImportGraph {
  const folder = (file: string) => folderOf(file, depth);
  const out: ImportGraph = new Map();
  for (const [from, tos] of files) {
    const f = folder(from);
    if (f === null) continue;
    const set = out.get(f) ?? new Set<string>();
    out.set(f, set);
    for (const to of tos) {
      const t = folder(to);
      if (t !== null && t !== f) set.add(t);
    }
  }
  return out;
}

/**
 * The cycles of a graph: its strongly connected components of more than one
 * node (Tarjan's algorithm), each sorted, in sorted order.
 */
export function cycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found.sort((a, b) => a[0].localeCompare(b[0]));
}

if (import.meta.main) {
  const args = [...Deno.args];
  const flag = (name: string) => args.includes(name) && args.splice(args.indexOf(name), 1) && true;
  const at = args.indexOf("--depth");
  const depth = at >= 0 ? Number(args.splice(at, 2)[1]) : 1;
  if (!(depth >= 1)) throw new Error("--depth takes a number of folder levels, 1 or more");
  const types = flag("--types");
  const files = await importGraph(args.length ? args : ENTRIES, ROOT, { types });
  const problems = [
    ...cycles(folderGraph(files, depth)).map((c) => `folders: ${c.join(" <-> ")}`),
    ...cycles(files).map((c) => `files: ${c.join(" <-> ")}`),
  ];
  for (const p of problems) console.log(p);
  console.log(`${files.size} files, ${problems.length} import cycles`);
  Deno.exit(problems.length ? 1 : 0);
}
