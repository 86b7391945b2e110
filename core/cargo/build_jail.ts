/**
 * The sandbox every build runs in. A build runs native code that a plugin's
 * author wrote (build scripts, proc macros) and the plugin's tests, so cargo
 * runs under bubblewrap: the system (`/usr`, `/opt`) read-only, a minimal
 * `/etc` (the dynamic loader's files, `alternatives`, and a `passwd` and
 * `group` of our own: never `shadow`), the plugin's source folder and its
 * world's build folders writable (`build_folders.ts`), the toolchain (with
 * std's sysroot), the SDK and this checkout read-only, and nothing else: no
 * network (a new network namespace with only loopback), no home folder, no
 * other world, no other world's build folders, a private `/tmp`, a fresh PID
 * namespace, the environment of `build_env.ts`, and everything ends with the
 * build. The folders of the world are bound by their checked real paths,
 * and before cargo starts the sandbox compares each one's device and inode
 * with those checked, so a link swapped in meanwhile is caught.
 *
 * Where no sandbox can be made (no `bwrap`, no unprivileged user namespaces)
 * builds are refused with {@link NO_SANDBOX}, unless the user sets
 * `SAUSAGE_UNSANDBOXED_BUILDS=1`, which lets build scripts and proc macros
 * run as the user, with the user's files and network.
 *
 * @module
 */

import { cacheDir } from "../paths.ts";
import { findExecutable } from "../executable.ts";
import { BuildError, type Toolchain } from "./toolchain.ts";
import type { BuildPlace, JailFolder } from "./build_folders.ts";

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
  /** Folders it may change (the plugin's source, the target folder); the first is its working folder. */
  writable: JailFolder[];
  /** Folders it may read (the toolchain, the SDK, this checkout). */
  readable: JailFolder[];
  /** The test runner's cache (`SAUSAGE_CACHE_DIR` inside; writable). */
  runnerCache: string;
}

/** A command ready to spawn. */
export interface JailedCommand {
  cmd: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * The jail of a build at `place`: the crate and its world's target folder
 * writable; the SDK and the toolchain's own folders (std's sysroot among
 * them) readable.
 */
export function buildSpec(tc: Toolchain, place: BuildPlace): JailSpec {
  const readable: JailFolder[] = [{ path: `${cacheDir()}/toolchain` }];
  if (place.sdk) readable.push(place.sdk);
  if (tc.kind === "wasip2") {
    // rustup's toolchains and cargo's proxies live in the home folder.
    const home = Deno.env.get("HOME") ?? "/root";
    readable.push(
      { path: Deno.env.get("RUSTUP_HOME") ?? `${home}/.rustup` },
      { path: `${Deno.env.get("CARGO_HOME") ?? `${home}/.cargo`}/bin` },
    );
  }
  return {
    writable: [place.dir, { path: place.target }],
    readable,
    runnerCache: place.runnerCache,
  };
}

let probe: Promise<string | { error: string }> | undefined;

/** Finds bubblewrap and checks that it can make a sandbox here (once per process). */
function sandboxer(): Promise<string | { error: string }> {
  probe ??= (async () => {
    const explicit = Deno.env.get("SAUSAGE_BWRAP");
    const bwrap = findExecutable(explicit ? [explicit] : BWRAP);
    if (!bwrap) return { error: "bubblewrap (bwrap) is not installed" };
    try {
      const r = await new Deno.Command(bwrap, {
        args: ["--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "true"],
        cwd: "/",
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

/** What of the host's `/etc` a build sees: what the loader, compilers and `cc` links need. */
const ETC = [
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "alternatives",
  "localtime",
  "nsswitch.conf",
];

/** bubblewrap's arguments for `names` under `/`: read-only, links kept as links. */
function systemArgs(names: string[]): string[] {
  const args: string[] = [];
  for (const path of names) {
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(path);
    } catch {
      continue;
    }
    if (info.isSymlink) args.push("--symlink", Deno.readLinkSync(path), path);
    else if (info.isDirectory || info.isFile) args.push("--ro-bind", path, path);
  }
  return args;
}

/**
 * The `passwd` and `group` files of the sandbox (its user and root, home in
 * the private `/tmp`), written once into the cache.
 */
function accountFiles(): { passwd: string; group: string } {
  const dir = `${cacheDir()}/toolchain/etc`;
  let uid = 0;
  try {
    uid = Deno.uid() ?? 0;
  } catch { /* no permission to ask: root's entries only */ }
  let gid = uid; // the launcher may ask for the user id only
  try {
    gid = Deno.gid() ?? uid;
  } catch { /* not permitted */ }
  const users = ["root:x:0:0:root:/tmp/home:/bin/sh"];
  const groups = ["root:x:0:"];
  if (uid !== 0) users.push(`builder:x:${uid}:${gid}:builder:/tmp/home:/bin/sh`);
  if (gid !== 0) groups.push(`builder:x:${gid}:`);
  users.push("nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin");
  groups.push("nogroup:x:65534:");
  const files = { passwd: users.join("\n") + "\n", group: groups.join("\n") + "\n" };
  const out = { passwd: `${dir}/passwd-${uid}`, group: `${dir}/group-${gid}` };
  Deno.mkdirSync(dir, { recursive: true });
  for (const key of ["passwd", "group"] as const) {
    let same = false;
    try {
      same = Deno.readTextFileSync(out[key]) === files[key];
    } catch { /* not written yet */ }
    if (same) continue;
    const tmp = `${out[key]}.tmp-${crypto.randomUUID()}`;
    Deno.writeTextFileSync(tmp, files[key]);
    Deno.renameSync(tmp, out[key]);
  }
  return out;
}

/**
 * The script that runs first in the sandbox: `sh -c CHECK sh <path> <dev:ino>
 * … -- cmd args` compares each bound world folder with the one checked,
 * then runs the command.
 */
const CHECK = `while [ "$1" != "--" ]; do
  if [ "$(stat -L -c %d:%i -- "$1")" != "$2" ]; then
    echo "sausage: $1 is not the folder that was checked (a link swapped in?): the build was refused" >&2
    exit 125
  fi
  shift 2
done
shift
exec "$@"`;

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
    if (Deno.env.get(UNSANDBOXED_SETTING) === "1") {
      // The user's own cargo, as the user: its home, and the host's cache for the runner.
      const home = Deno.env.get("HOME");
      return {
        cmd,
        args,
        env: { ...env, ...(home ? { HOME: home } : {}), SAUSAGE_CACHE_DIR: cacheDir() },
      };
    }
    throw new BuildError(`the build was refused: ${bwrap.error}`, `${bwrap.error}: ${NO_SANDBOX}`);
  }
  const jailCache = spec.runnerCache;
  Deno.mkdirSync(jailCache, { recursive: true });
  const accounts = accountFiles();
  const out = [
    "--unshare-all",
    "--die-with-parent",
    "--new-session",
    ...systemArgs(
      ["usr", "opt", "bin", "sbin", "lib", "lib32", "lib64", "libx32"].map((n) => `/${n}`),
    ),
    "--dir",
    "/etc",
    ...systemArgs(ETC.map((n) => `/etc/${n}`)),
    "--ro-bind",
    accounts.passwd,
    "/etc/passwd",
    "--ro-bind",
    accounts.group,
    "/etc/group",
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--tmpfs",
    "/tmp",
  ];
  const seen = new Set<string>();
  const checks: string[] = [];
  const bind = (flag: string, folder: JailFolder) => {
    // A world folder is bound by its checked path (a link swapped in is
    // caught by CHECK); any other by its real path.
    const p = folder.identity ? folder.path : real(folder.path);
    if (!p || seen.has(`${flag} ${p}`) || p === "/") return;
    seen.add(`${flag} ${p}`);
    out.push(flag, p, p);
    if (folder.identity) checks.push(p, folder.identity);
  };
  bind("--ro-bind", { path: CHECKOUT });
  bind("--ro-bind", { path: `${CHECKOUT}/node_modules` }); // when it is a link to elsewhere
  // Worlds that live in the checkout (examples/world) stay out of sight.
  if (exists(`${CHECKOUT}/examples`)) out.push("--tmpfs", `${CHECKOUT}/examples`);
  for (const p of spec.readable) bind("--ro-bind", p);
  for (const p of [...spec.writable, { path: jailCache }]) bind("--bind", p);
  const inner: Record<string, string> = {
    ...env,
    HOME: "/tmp/home",
    CARGO_HOME: "/tmp/cargo-home",
    TMPDIR: "/tmp",
    SAUSAGE_CACHE_DIR: jailCache,
  };
  const first = spec.writable[0];
  out.push("--chdir", first ? (first.identity ? first.path : real(first.path) ?? "/tmp") : "/tmp");
  out.push("--", "/bin/sh", "-c", CHECK, "sh", ...checks, "--", cmd, ...args);
  return { cmd: bwrap, args: out, env: inner };
}
