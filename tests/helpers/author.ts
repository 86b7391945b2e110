/**
 * What the author's-loop tests share: a long-running `sausage` subprocess
 * read as it prints, waiting for a line, the README's second plugin and the
 * edit that renames hello's param.
 *
 * @module
 */

import { CHECKOUT, launcher } from "./cli.ts";

const dec = new TextDecoder();

/** A long-running `sausage` subprocess whose stderr is collected as it comes. */
export interface Started {
  child: Deno.ChildProcess;
  /** What it printed on stderr so far. */
  stderr: () => string;
  /** Resolves once its stderr ended (all of it is in `stderr()`). */
  read: Promise<void>;
}

/** Starts `sausage <args>` with stderr collected ({@link Started}). */
export function start(...args: string[]): Started {
  return startWith({}, ...args);
}

/** {@link start} with variables added to the environment the command inherits. */
export function startWith(opts: { env?: Record<string, string> }, ...args: string[]): Started {
  // In the checkout, never the test process's working folder: another test thread may be inside a
  // folder it is about to remove (vfs/confined_dir.ts), which the command would keep.
  return spawnCollecting(launcher, { args, cwd: CHECKOUT, env: opts.env });
}

/**
 * Spawns `command` as `options` say (stdin and stdout null unless they say
 * otherwise) with its stderr collected ({@link Started}).
 */
export function spawnCollecting(command: string, options: Deno.CommandOptions): Started {
  const child = new Deno.Command(command, {
    stdin: "null",
    stdout: "null",
    ...options,
    stderr: "piped",
  }).spawn();
  let text = "";
  const read = (async () => {
    for await (const chunk of child.stderr) text += dec.decode(chunk, { stream: true });
  })();
  return { child, stderr: () => text, read };
}

/** Waits until `pattern` appears in `text()` after `from` characters. */
export async function waitFor(text: () => string, pattern: RegExp, from = 0, ms = 600_000) {
  const end = Date.now() + ms;
  while (!pattern.test(text().slice(from))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${pattern}; got:\n${text()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The template's hello with its param `name` renamed `who` (and its tests with it). */
export function renameParam(hello: string): string {
  return hello.replace("    name: String,", "    who: String,")
    .replace("GreetParams { name }", "GreetParams { who: name }")
    .replaceAll("GreetParams { name: ", "GreetParams { who: ");
}

/** The README's second plugin. */
export const WELCOME = `//! Welcome: greets newcomers, through the hello plugin.

use sausage_plugin::{Result, rpc, schema};

sausage_plugin::import!("hello");

/// The welcome plugin.
struct Welcome;

/// The params of \`welcome\`.
#[schema]
struct WelcomeParams {
    /// The newcomer's name.
    name: String,
}

#[rpc]
impl Welcome {
    /// Welcome someone: hello's greeting, then a word of welcome.
    async fn welcome(&self, WelcomeParams { name }: WelcomeParams) -> Result<String> {
        let greeting = hello::greet(hello::GreetParams { name }).await?;
        Ok(format!("{} Welcome to this world.", greeting.text))
    }
}

fn main() {
    sausage_plugin::run(Welcome);
}
`;
