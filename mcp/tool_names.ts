/**
 * MCP tool names for Sausage methods. MCP clients commonly accept only
 * `[A-Za-z0-9_-]{1,64}`, so `notes.add` becomes `notes_add`:
 *
 * 1. the plugin and the method are joined with `_`, and every character
 *    outside `A-Z a-z 0-9 _ -` becomes `_` (`notes.rpc.x` → `notes_rpc_x`);
 * 2. a name longer than 64 characters is cut to 55 and gets `_` and 8 hex
 *    digits of the SHA-256 of the method name;
 * 3. when two methods get the same name (`a_b.c` and `a.b_c` both give
 *    `a_b_c`), each of them gets `_` and 8 hex digits of the SHA-256 of its
 *    method name instead (cut as in 2), so neither depends on which one came
 *    first.
 *
 * Each tool also carries its method name in `_meta["sausage/method"]` and in
 * its `title`.
 *
 * @module
 */

import { sha256 } from "../core/cache/sha256.ts";

/** The longest tool name that MCP clients commonly accept. */
export const MAX_TOOL_NAME = 64;

/** Eight hex digits of the SHA-256 of `text`. */
async function shortHash(text: string): Promise<string> {
  return (await sha256(text)).slice(0, 8);
}

/** A name with a hash of `method` at its end, within the limit. */
async function hashed(base: string, method: string): Promise<string> {
  return `${base.slice(0, MAX_TOOL_NAME - 9)}_${await shortHash(method)}`;
}

/** The plain name of a method (`notes.add` → `notes_add`), before limits and collisions. */
function plainToolName(method: string): string {
  return method.replace(/[^A-Za-z0-9_-]/g, "_");
}

/** The tool name of each method (`<plugin>.<method>`), distinct and valid for MCP clients. */
export async function toolNames(methods: string[]): Promise<Map<string, string>> {
  const first = new Map<string, string>();
  for (const m of methods) {
    const plain = plainToolName(m);
    first.set(m, plain.length > MAX_TOOL_NAME ? await hashed(plain, m) : plain);
  }
  const count = new Map<string, number>();
  for (const name of first.values()) count.set(name, (count.get(name) ?? 0) + 1);
  const names = new Map<string, string>();
  for (const [m, name] of first) {
    names.set(m, count.get(name)! > 1 ? await hashed(plainToolName(m), m) : name);
  }
  return names;
}
