/**
 * A C compiler for WASI, for build scripts that compile C (section 11): a
 * clang with the WebAssembly target and a WASI sysroot (Debian's
 * `wasi-libc` puts one under `/usr`), and `llvm-ar`. When one is installed,
 * cargo gets `CC_wasm32_wasip1`, `AR_wasm32_wasip1` and `CFLAGS_wasm32_wasip1`
 * (and the same for `wasm32-wasip2`), which the `cc` crate and hand-written
 * build scripts read.
 *
 * @module
 */

/** A working WASI C toolchain. */
export interface WasiCc {
  /** The clang executable. */
  cc: string;
  /** The archiver (`llvm-ar`). */
  ar: string;
  /** The flags that select the target and the sysroot. */
  cflags: string;
}

/** The targets cargo builds plugins for. */
const TARGETS = ["wasm32_wasip1", "wasm32_wasip2"];

/** Sysroots to try: `WASI_SYSROOT`, wasi-sdk's, Debian's wasi-libc under `/usr`. */
function sysroots(): string[] {
  const list = [Deno.env.get("WASI_SYSROOT"), "/opt/wasi-sdk/share/wasi-sysroot", "/usr"];
  return list.filter((s): s is string => !!s);
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/** Executables named `name` or `name-<version>` in PATH and LLVM's folders, newest version first. */
function candidates(name: string): string[] {
  const found: string[] = [];
  const dirs = [...(Deno.env.get("PATH") ?? "").split(":").filter(Boolean), "/opt/wasi-sdk/bin"];
  try {
    for (const e of Deno.readDirSync("/usr/lib")) {
      if (/^llvm-\d+$/.test(e.name)) dirs.push(`/usr/lib/${e.name}/bin`);
    }
  } catch { /* no /usr/lib */ }
  for (const dir of dirs) {
    let names: string[];
    try {
      names = [...Deno.readDirSync(dir)].map((e) => e.name);
    } catch {
      continue;
    }
    for (const n of names) {
      if ((n === name || new RegExp(`^${name}-\\d+$`).test(n)) && isFile(`${dir}/${n}`)) {
        found.push(`${dir}/${n}`);
      }
    }
  }
  const version = (p: string) => Number(p.match(/-(\d+)$/)?.[1] ?? p.match(/llvm-(\d+)/)?.[1] ?? 0);
  return [...new Set(found)].sort((a, b) => version(b) - version(a));
}

/** True when `clang` compiles a C file that includes libc headers for WASI with `cflags`. */
async function compiles(clang: string, cflags: string): Promise<boolean> {
  const dir = await Deno.makeTempDir({ prefix: "sausage-cc-" });
  try {
    await Deno.writeTextFile(
      `${dir}/probe.c`,
      '#include <stdio.h>\nint probe(void) { return printf(""); }\n',
    );
    const r = await new Deno.Command(clang, {
      args: [...cflags.split(" "), "-c", `${dir}/probe.c`, "-o", `${dir}/probe.o`],
      // Never the process's working folder, which may be gone (a host started in a folder
      // removed since): then every spawn fails, and a working clang looked missing.
      cwd: dir,
      stdout: "null",
      stderr: "null",
    }).output();
    return r.success;
  } catch {
    return false;
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

let detected: Promise<WasiCc | null> | undefined;

/** Finds a working WASI C toolchain (once per process); null when none is installed. */
export function detectWasiCc(): Promise<WasiCc | null> {
  detected ??= (async () => {
    const ars = candidates("llvm-ar");
    if (!ars.length) return null;
    for (const cc of candidates("clang")) {
      for (const sysroot of sysroots()) {
        const cflags = `--target=wasm32-wasi --sysroot=${sysroot}`;
        if (await compiles(cc, cflags)) {
          // The archiver of the same LLVM when there is one.
          const v = cc.match(/-(\d+)$/)?.[1] ?? cc.match(/llvm-(\d+)/)?.[1];
          const ar = ars.find((a) => v && (a.endsWith(`-${v}`) || a.includes(`llvm-${v}/`))) ??
            ars[0];
          return { cc, ar, cflags };
        }
      }
    }
    return null;
  })();
  return detected;
}

/** The environment that hands `cc` to build scripts for both WASI targets. */
export function wasiCcEnv(cc: WasiCc): Record<string, string> {
  const env: Record<string, string> = {};
  for (const t of TARGETS) {
    env[`CC_${t}`] = cc.cc;
    env[`AR_${t}`] = cc.ar;
    env[`CFLAGS_${t}`] = cc.cflags;
  }
  return env;
}

/** True when a build's output shows a build script that failed to compile C. */
export function isCcFailure(output: string): boolean {
  return /failed to find tool|ToolNotFound|error occurred: Command .*(cc|clang)|is `?(cc|clang)`? not installed|CC_wasm32|error: linker `cc`|cc-rs|No such file or directory.*\b(cc|clang)\b|environment variable `CC|(cc|clang): not found/i
    .test(output);
}

/** The hint that goes with a failed C build when no WASI clang is installed. */
export const NO_WASI_CC =
  "no C compiler for WASI is installed, and a build script needs one: install clang with the " +
  "WebAssembly target and wasi-libc (Debian: apt-get install clang wasi-libc lld); Sausage then " +
  "sets CC_wasm32_wasip1 / CC_wasm32_wasip2 and AR_… for build scripts";
