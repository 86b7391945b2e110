/**
 * Subprocesses that can be ended with everything they started: cargo runs
 * rustc, build scripts and test runners (which run sandboxes), and stopping
 * a build must end them all.
 *
 * @module
 */

import { findExecutable } from "../executable.ts";

/**
 * Spawns a command in a process group of its own where `setsid` exists
 * (Linux), so that an abort ends it and everything it started (rustc, test
 * runners, their sandboxes): SIGTERM to the group, SIGKILL 2 s later.
 */
export function spawnGroup(
  cmd: string,
  options: Deno.CommandOptions,
  signal?: AbortSignal,
): Deno.ChildProcess {
  const setsid = findExecutable(["/usr/bin/setsid", "/bin/setsid"]);
  // A folder of the caller's choice, else "/": never the process's working folder, which may be
  // gone (a host started in a folder removed since), and then no spawn works.
  const opts = { cwd: "/", ...options };
  const child = setsid
    ? new Deno.Command(setsid, { ...opts, args: [cmd, ...opts.args ?? []] }).spawn()
    : new Deno.Command(cmd, opts).spawn();
  if (signal) {
    let ended = false;
    const kill = (sig: Deno.Signal) => {
      if (ended) return;
      try {
        Deno.kill(setsid ? -child.pid : child.pid, sig);
      } catch { /* gone */ }
    };
    const onAbort = () => {
      kill("SIGTERM");
      const timer = setTimeout(() => kill("SIGKILL"), 2000);
      child.status.finally(() => clearTimeout(timer));
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    child.status.finally(() => {
      ended = true;
      signal.removeEventListener("abort", onAbort);
    });
  }
  return child;
}
