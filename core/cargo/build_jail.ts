/**
 * The sandbox every build runs in. A build runs native code that a plugin's
 * author wrote (build scripts, proc macros) and the plugin's tests, so cargo
 * runs under bubblewrap: the system (`/usr`, `/etc`, `/opt`) read-only, the
 * plugin's source folder and the build output folders writable, the
 * toolchain, the SDK and this checkout read-only, and nothing else: no
 * network (a new network namespace with only loopback), no home folder, no
 * other world, a private `/tmp`, a fresh PID namespace, and everything ends
 * with the build.
 *
 * Where no sandbox can be made (no `bwrap`, no unprivileged user namespaces)
 * builds are refused with {@link NO_SANDBOX}, unless the user sets
 * `SAUSAGE_UNSANDBOXED_BUILDS=1`, which lets build scripts and proc macros
 * run as the user, with the user's files and network.
 *
 * @module
 */

import { cacheDir } from "../paths.ts";
import { BuildError, type Toolchain } from "./toolchain.ts";

/** The setting that lets builds run without a sandbox. */
const UNSANDBOXED_SETTING = "SAUSAGE_UNSANDBOXED_BUILDS";

/** The message of a refused build, after the reason. */
const NO_SANDBOX =
  "builds run in a sandbox (bubblewrap), and none can be made here. Install it with " +
  "scripts/install-toolchain.sh (Debian: apt-get install bubblewrap; unprivileged user " +
  `namespaces must be enabled), or set ${UNSANDBOXED_SETTING}=1 to let build scripts and ` +
  "proc macros run as your user, with your files and your network";

/** Where bubblewrap is looked for (`SAUSAGE_BWRAP` names another place). */
const BWRAP = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"];

/** What a jailed command may see beyond the system. */
export interface JailSpec {
  /** Folders it may change (the plugin's source, the target folder). */
  writable: string[];
  /** Folders it may read (the toolchain, the SDK, this checkout). */
  readable: string[];
}

/** A command ready to spawn. */
export interface JailedCommand {
  cmd: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * The jail of a build of the crate in `dir`: the crate and the toolchain's
 * target folder writable; the SDK and the toolchain's own folders readable.
 */
export function buildSpec(tc: Toolchain, dir: string, sdkDir: string | undefined): JailSpec {
  const readable = [`${cacheDir()}/toolchain`];
  if (sdkDir) readable.push(sdkDir);
  if (tc.kind === "wasip2") {
    // rustup's toolchains and cargo's proxies live in the home folder.
    const home = Deno.env.get("HOME") ?? "/root";
    readable.push(
      Deno.env.get("RUSTUP_HOME") ?? `${home}/.rustup`,
      `${Deno.env.get("CARGO_HOME") ?? `${home}/.cargo`}/bin`,
    );
  }
  Deno.mkdirSync(tc.targetDir, { recursive: true });
  return { writable: [dir, tc.targetDir], readable };
}

let probe: Promise<string | { error: string }> | undefined;

/** Finds bubblewrap and checks that it can make a sandbox here (once per process). */
function sandboxer(): Promise<string | { error: string }> {
  probe ??= (async () => {
    const explicit = Deno.env.get("SAUSAGE_BWRAP");
    const bwrap = (explicit ? [explicit] : BWRAP).find((p) => {
      try {
        return Deno.statSync(p).isFile;
      } catch {
        return false;
      }
    });
    if (!bwrap) return { error: "bubblewrap (bwrap) is not installed" };
    try {
      const r = await new Deno.Command(bwrap, {
        args: ["--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "true"],
        stdout: "null",
        stderr: "piped",
      }).output();
      if (r.success) return bwrap;
      return { error: `bwrap cannot make a sandbox: ${new TextDecoder().decode(r.stderr).trim()}` };
    } catch (e) {
      return { error: `bwrap cannot run: ${e instanceof Error ? e.message : e}` };
    }
  })();
  return probe;
}

/** True when `path` exists. */
function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The real path of a folder, or undefined when it does not exist. */
function real(path: string): string | undefined {
  try {
    return Deno.realPathSync(path);
  } catch {
    return undefined;
  }
}

/** bubblewrap's arguments for the system folders: read-only, links kept as links. */
function systemArgs(): string[] {
  const args: string[] = [];
  for (const name of ["usr", "etc", "opt", "bin", "sbin", "lib", "lib32", "lib64", "libx32"]) {
    const path = `/${name}`;
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(path);
    } catch {
      continue;
    }
    if (info.isSymlink) args.push("--symlink", Deno.readLinkSync(path), path);
    else if (info.isDirectory) args.push("--ro-bind", path, path);
  }
  return args;
}

/** The folder of this checkout (read-only in the jail: the test runner runs from it). */
const CHECKOUT = decodeURIComponent(new URL("../..", import.meta.url).pathname).replace(/\/$/, "");

/**
 * Wraps `cmd args` in the build sandbox. `env` is the command's
 * environment; inside, `HOME`, `CARGO_HOME` and `TMPDIR` are in the private
 * `/tmp`, and the test runner keeps its transpiled components in a cache of
 * its own (`<cache>/jail`), never in the host's.
 * Throws a {@link BuildError} when no sandbox can be made and the user has
 * not opted out; with the opt-out, returns the command as it is.
 */
export async function jailed(
  cmd: string,
  args: string[],
  env: Record<string, string>,
  spec: JailSpec,
): Promise<JailedCommand> {
  const bwrap = await sandboxer();
  if (typeof bwrap !== "string") {
    if (Deno.env.get(UNSANDBOXED_SETTING) === "1") return { cmd, args, env };
    throw new BuildError(`the build was refused: ${bwrap.error}`, `${bwrap.error}: ${NO_SANDBOX}`);
  }
  const jailCache = `${cacheDir()}/jail`;
  Deno.mkdirSync(jailCache, { recursive: true });
  const out = [
    "--unshare-all",
    "--die-with-parent",
    "--new-session",
    ...systemArgs(),
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--tmpfs",
    "/tmp",
  ];
  const seen = new Set<string>();
  const bind = (flag: string, path: string | undefined) => {
    const p = path && real(path);
    if (!p || seen.has(`${flag} ${p}`) || p === "/") return;
    seen.add(`${flag} ${p}`);
    out.push(flag, p, p);
  };
  bind("--ro-bind", CHECKOUT);
  bind("--ro-bind", `${CHECKOUT}/node_modules`); // when it is a link to elsewhere
  // Worlds that live in the checkout (examples/world) stay out of sight.
  if (exists(`${CHECKOUT}/examples`)) out.push("--tmpfs", `${CHECKOUT}/examples`);
  for (const p of spec.readable) bind("--ro-bind", p);
  for (const p of [...spec.writable, jailCache]) bind("--bind", p);
  const inner: Record<string, string> = {
    ...env,
    HOME: "/tmp/home",
    CARGO_HOME: "/tmp/cargo-home",
    TMPDIR: "/tmp",
    SAUSAGE_CACHE_DIR: jailCache,
  };
  for (const name of ["XDG_RUNTIME_DIR", "XDG_CACHE_HOME", "SAUSAGE_RUNTIME_DIR"]) {
    delete inner[name];
  }
  out.push("--chdir", spec.writable[0] ?? "/tmp", "--", cmd, ...args);
  return { cmd: bwrap, args: out, env: inner };
}
