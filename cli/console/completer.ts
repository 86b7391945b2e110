/**
 * Tab completion in the console: commands and plugins as the first word,
 * methods after `<plugin>.`, then per command its plugins, pids or paths
 * (`activate <plugin> <Tab>`: that plugin's newest builds).
 *
 * @module
 */

import { COMMANDS } from "./input.ts";

/** Where completions come from: the running host. */
export interface CompletionSource {
  /** The plugins of the world. */
  plugins(): string[];
  /** The methods of a plugin (`core` included), without the plugin's name. */
  methods(plugin: string): Promise<string[]>;
  /** The pids of the running processes. */
  pids(): string[];
  /** The entries of a folder as a process sees it; folders end with `/`. */
  list(path: string): Promise<string[]>;
}

/** What the arguments of each command are, in order (the last one repeats). */
const ARGS: Record<string, ("plugin" | "pid" | "path" | "build" | "none")[]> = {
  ls: ["path", "none"],
  cat: ["path", "none"],
  methods: ["plugin", "none"],
  revert: ["plugin", "none"],
  activate: ["plugin", "build", "none"],
  stop: ["pid", "none"],
  kill: ["pid", "none"],
  log: ["plugin", "none"],
};

/** The first words: commands (with a space when they take arguments) and `<plugin>.`. */
function firstWords(src: CompletionSource): string[] {
  const commands = new Map<string, boolean>();
  for (const c of COMMANDS) {
    const word = c.name.split(" ")[0];
    commands.set(word, (commands.get(word) ?? false) || c.args !== "" || c.name.includes(" "));
  }
  return [
    ...[...commands].map(([w, takesArgs]) => (takesArgs ? `${w} ` : w)),
    ...src.plugins().map((p) => `${p}.`),
  ];
}

/** The completions of `before` (the text before the cursor) and the part of it they replace. */
export async function complete(
  before: string,
  src: CompletionSource,
): Promise<[string[], string]> {
  const text = before.trimStart();
  const words = text.split(/\s+/);
  const current = words.at(-1) ?? "";
  if (words.length === 1) {
    const dot = current.indexOf(".");
    if (dot > 0) {
      const plugin = current.slice(0, dot);
      const methods = await src.methods(plugin);
      return [methods.map((m) => `${plugin}.${m}`).filter((m) => m.startsWith(current)), current];
    }
    return [firstWords(src).filter((w) => w.startsWith(current)), current];
  }
  const kinds = ARGS[words[0]];
  if (!kinds) return [[], current];
  const kind = kinds[Math.min(words.length - 2, kinds.length - 1)];
  let candidates: string[] = [];
  if (kind === "plugin") {
    candidates = words[0] === "log" ? [...src.plugins(), ...src.pids()] : src.plugins();
  } else if (kind === "pid") candidates = src.pids();
  else if (kind === "build") {
    candidates = (await builds(src, words[1])).filter((c) => c.startsWith(current));
    if (candidates.length || current === "") return [candidates, current];
  }
  if (kind === "path" || kind === "build") { // a file elsewhere: its path
    const slash = current.lastIndexOf("/");
    const dir = current.slice(0, slash + 1);
    candidates = (await src.list(dir === "" ? "/" : dir)).map((name) => `${dir}${name}`);
  }
  return [candidates.filter((c) => c.startsWith(current)), current];
}

/** The builds folder, as a process sees it. */
const BUILDS = "/state/cargo/builds/";
/** How many of the newest build folders `activate <plugin> <Tab>` looks into. */
const BUILDS_LOOKED_AT = 20;

/** `plugin`'s builds among the newest build folders, newest first. */
async function builds(src: CompletionSource, plugin: string): Promise<string[]> {
  const numbers = (await src.list(BUILDS).catch((): string[] => []))
    .map((name) => name.replace(/\/$/, "")).filter((n) => /^\d+$/.test(n))
    .map(Number).sort((a, b) => b - a).slice(0, BUILDS_LOOKED_AT);
  const found = await Promise.all(numbers.map(async (n) => {
    const entries = await src.list(`${BUILDS}${n}/`).catch((): string[] => []);
    return entries.includes(`${plugin}.wasm`) ? [`${BUILDS}${n}/${plugin}.wasm`] : [];
  }));
  return found.flat();
}
