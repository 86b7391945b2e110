/**
 * Tab completion in the console: commands and plugins as the first word,
 * methods after `<plugin>.`, then per command its plugins, pids or paths.
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
const ARGS: Record<string, ("plugin" | "pid" | "path" | "none")[]> = {
  ls: ["path", "none"],
  cat: ["path", "none"],
  methods: ["plugin", "none"],
  revert: ["plugin", "none"],
  activate: ["plugin", "path", "none"],
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
  else if (kind === "path") {
    const slash = current.lastIndexOf("/");
    const dir = current.slice(0, slash + 1);
    candidates = (await src.list(dir === "" ? "/" : dir)).map((name) => `${dir}${name}`);
  }
  return [candidates.filter((c) => c.startsWith(current)), current];
}
