/**
 * The `fd_*` functions of preview 1: reads and writes (stdio, files at
 * their position or appended), seeks, stats, flags, sync, readdir with
 * cookies, renumber and the preopens' `fd_prestat_*`. stdin's reads wait
 * (a promise, so the guest suspends) only when its queue is empty; stdout
 * and stderr go to their line sinks at once.
 *
 * @module
 */

import type { Preview1Context, Preview1Fn } from "./context.ts";
import { ERRNO, Errno } from "./errno.ts";
import type { FileEntry, ListedEntry } from "./fd_table.ts";
import { utf8 } from "./memory.ts";
import { nextTurn } from "../guest/event_turns.ts";
import {
  FDFLAGS,
  FILE_ONLY_RIGHTS,
  FILETYPE,
  filetypeOf,
  READ_RIGHTS,
  RIGHTS,
  timesOf,
  writeEmptyFilestat,
  writeFdstat,
  writeFilestat,
} from "./values.ts";
import { LAYOUT } from "./layout.ts";

/**
 * The most bytes one `fd_read`/`fd_pread` moves, or one `fd_write`/`fd_pwrite`
 * to a file: a larger transfer is short (preview 1 allows it; libc and Rust
 * loop), so one call's work and host allocation stay small whatever the guest
 * asks, and the sandbox serves its other processes between calls.
 */
export const CHUNK = 2 ** 20;

/**
 * The most bytes, and lines, one `fd_write` to stdout or stderr takes: each
 * line is a message to the core, made at once, so a write of millions of
 * short lines is cut into calls of a few hundred (and waits while the output
 * window is full, `output_window.ts`).
 */
export const STDIO_CHUNK = 64 * 1024;
/** See {@link STDIO_CHUNK}. */
export const STDIO_LINES = 256;

/** The largest file offset the binding takes (past it: EINVAL for a read, EFBIG for a write). */
const MAX_OFFSET = Number.MAX_SAFE_INTEGER;

/** `bytes` cut after its `STDIO_LINES`th newline, if it has that many. */
function someLines(bytes: Uint8Array): Uint8Array {
  let at = -1;
  for (let i = 0; i < STDIO_LINES; i++) {
    at = bytes.indexOf(10, at + 1);
    if (at < 0) return bytes;
  }
  return bytes.subarray(0, at + 1);
}

/** A guest file offset (an unsigned 64-bit number) as a number, or `err` past {@link MAX_OFFSET}. */
function offsetOf(offset: bigint, err: number): number {
  const u = BigInt.asUintN(64, offset);
  if (u > BigInt(MAX_OFFSET)) throw new Errno(err);
  return Number(u);
}

/** One record header of `fd_readdir` (reused: records are copied into the guest at once). */
const header = new Uint8Array(LAYOUT.dirent.size);
const D = LAYOUT.dirent.fields;
const headerView = new DataView(header.buffer);

/** The file handle of a file entry open for reading (EBADF otherwise). */
function readable(e: FileEntry) {
  if (e.kind !== "file" || !e.desc.file) {
    throw new Errno(e.kind === "dir" ? ERRNO.isdir : ERRNO.badf);
  }
  if (!e.desc.flags.read) throw new Errno(ERRNO.badf);
  return e.desc.file;
}

/** The file handle of a file entry open for writing (EBADF otherwise). */
function writable(e: FileEntry) {
  if (e.kind !== "file" || !e.desc.file) {
    throw new Errno(e.kind === "dir" ? ERRNO.isdir : ERRNO.badf);
  }
  if (!e.desc.flags.write) throw new Errno(ERRNO.badf);
  return e.desc.file;
}

/** The rights of a file or folder entry, as the adapter reports them: all but what its flags lack. */
export function rightsOf(e: FileEntry): bigint {
  let r = RIGHTS.all;
  if (!e.desc.flags.read) r &= ~READ_RIGHTS;
  if (!e.desc.flags.write) r &= ~RIGHTS.fdWrite;
  return r;
}

/** The `fd_*` functions of one process. */
export function fdOps(ctx: Preview1Context): Record<string, Preview1Fn> {
  const { mem, fds } = ctx;

  const readFile = async (e: FileEntry, iovs: number, n: number, at: number | null) => {
    const file = readable(e);
    const { total } = mem.iovecs(iovs, n, CHUNK);
    const bytes = await file.read(total, at ?? e.pos);
    if (at === null) e.pos += bytes.length;
    return mem.scatter(iovs, n, bytes);
  };

  const writeFile = async (e: FileEntry, bytes: Uint8Array, at: number | null) => {
    const file = writable(e);
    const where = at ?? (e.append ? await file.size() : e.pos);
    const n = await file.write(bytes, where);
    if (at === null) e.pos = where + n;
    return n;
  };

  return {
    fd_read(fd: number, iovs: number, n: number, nread: number) {
      const e = fds.get(fd);
      if (e.kind === "stdio") {
        if (!e.input) throw new Errno(ERRNO.badf);
        const input = e.input;
        const take = (): number => {
          const bytes = input.read(mem.iovecs(iovs, n, CHUNK).total);
          mem.u32(nread, bytes === null ? 0 : mem.scatter(iovs, n, bytes));
          return 0;
        };
        const wait = input.whenReadable();
        if (wait === undefined) return take();
        return (async () => {
          for (let w: Promise<void> | undefined = wait; w; w = input.whenReadable()) await w;
          return take();
        })();
      }
      return readFile(e, iovs, n, null).then((count) => (mem.u32(nread, count), 0));
    },

    fd_pread(fd: number, iovs: number, n: number, offset: bigint, nread: number) {
      const e = fds.get(fd);
      if (e.kind === "stdio") throw new Errno(ERRNO.spipe);
      const at = offsetOf(offset, ERRNO.inval);
      return readFile(e, iovs, n, at).then((count) => (mem.u32(nread, count), 0));
    },

    fd_write(fd: number, iovs: number, n: number, nwritten: number) {
      const e = fds.get(fd);
      if (e.kind === "stdio") {
        if (!e.output) throw new Errno(ERRNO.badf);
        const bytes = someLines(mem.gather(iovs, n, STDIO_CHUNK));
        e.output.write(bytes);
        mem.u32(nwritten, bytes.length);
        // A full output window (output_window.ts): the guest waits, others go on.
        return e.output.busy ? Promise.resolve(e.output.flush()).then(() => 0) : 0;
      }
      const bytes = mem.gather(iovs, n, CHUNK);
      return writeFile(e, bytes, null).then((count) => (mem.u32(nwritten, count), 0));
    },

    fd_pwrite(fd: number, iovs: number, n: number, offset: bigint, nwritten: number) {
      const e = fds.get(fd);
      if (e.kind === "stdio") throw new Errno(ERRNO.spipe);
      const at = offsetOf(offset, ERRNO.fbig);
      const bytes = mem.gather(iovs, n, CHUNK);
      return writeFile(e, bytes, at).then((count) => (mem.u32(nwritten, count), 0));
    },

    async fd_seek(fd: number, offset: bigint, whence: number, out: number) {
      const e = fds.get(fd);
      if (e.kind === "stdio") throw new Errno(ERRNO.spipe);
      if (e.kind === "dir") throw new Errno(ERRNO.badf);
      let base: number;
      if (whence === 0) base = 0;
      else if (whence === 1) base = e.pos;
      else if (whence === 2) base = await e.desc.file!.size();
      else throw new Errno(ERRNO.inval);
      const pos = base + Number(offset);
      if (pos < 0 || !Number.isSafeInteger(pos)) throw new Errno(ERRNO.inval);
      e.pos = pos;
      mem.u64(out, pos);
      return 0;
    },

    fd_tell(fd: number, out: number) {
      const e = fds.get(fd);
      if (e.kind === "stdio") throw new Errno(ERRNO.spipe);
      if (e.kind === "dir") throw new Errno(ERRNO.badf);
      mem.u64(out, e.pos);
      return 0;
    },

    fd_close(fd: number) {
      fds.close(fd);
      return 0;
    },

    fd_renumber(from: number, to: number) {
      fds.renumber(from, to);
      return 0;
    },

    async fd_sync(fd: number) {
      await fds.file(fd).desc.file?.sync();
      return 0;
    },

    async fd_datasync(fd: number) {
      await fds.file(fd).desc.file?.sync();
      return 0;
    },

    fd_advise(fd: number, _offset: bigint, _len: bigint, advice: number) {
      const e = fds.file(fd);
      if (e.kind === "dir") throw new Errno(ERRNO.badf);
      if (advice > 5) throw new Errno(ERRNO.inval);
      return 0;
    },

    fd_allocate(fd: number) {
      if (fds.file(fd).kind === "dir") throw new Errno(ERRNO.badf);
      return ERRNO.notsup;
    },

    fd_fdstat_get(fd: number, out: number) {
      const e = fds.get(fd);
      if (e.kind === "stdio") {
        const rights = e.input ? RIGHTS.fdRead : RIGHTS.fdWrite;
        writeFdstat(mem, out, FILETYPE.unknown, 0, rights, rights);
        return 0;
      }
      const flags = e.fdflags | (e.append ? FDFLAGS.append : 0);
      if (e.kind === "dir") {
        writeFdstat(
          mem,
          out,
          FILETYPE.directory,
          flags,
          RIGHTS.all & ~FILE_ONLY_RIGHTS,
          RIGHTS.all,
        );
      } else {
        const rights = rightsOf(e);
        writeFdstat(mem, out, FILETYPE.regularFile, flags, rights, rights);
      }
      return 0;
    },

    fd_fdstat_set_flags(fd: number, flags: number) {
      const e = fds.get(fd);
      if (flags & ~(FDFLAGS.append | FDFLAGS.nonblock)) throw new Errno(ERRNO.inval);
      if (e.kind === "stdio") return 0;
      e.append = !!(flags & FDFLAGS.append);
      e.fdflags = (e.fdflags & ~FDFLAGS.nonblock) | (flags & FDFLAGS.nonblock);
      return 0;
    },

    fd_fdstat_set_rights(fd: number) {
      fds.get(fd);
      return ERRNO.notsup;
    },

    async fd_filestat_get(fd: number, out: number) {
      const e = fds.get(fd);
      if (e.kind === "stdio") {
        writeEmptyFilestat(mem, out, FILETYPE.unknown);
        return 0;
      }
      writeFilestat(mem, out, await e.desc.mountStat(), ctx.devOf(e.desc.mount));
      return 0;
    },

    async fd_filestat_set_size(fd: number, size: bigint) {
      const e = fds.file(fd);
      if (e.kind === "dir") throw new Errno(ERRNO.badf);
      await e.desc.setSize(size);
      return 0;
    },

    async fd_filestat_set_times(fd: number, atim: bigint, mtim: bigint, fst: number) {
      const e = fds.file(fd);
      const [a, m] = timesOf(atim, mtim, fst);
      await e.desc.setTimes(a, m);
      return 0;
    },

    fd_prestat_get(fd: number, out: number) {
      const e = fds.get(fd);
      if (e.kind === "stdio" || !e.preopen) throw new Errno(ERRNO.badf);
      mem.u32(out + LAYOUT.prestat.fields.tag, 0); // preopentype dir, and padding
      mem.u32(out + LAYOUT.prestat.fields.pr_name_len, e.preopen.length);
      return 0;
    },

    fd_prestat_dir_name(fd: number, ptr: number, len: number) {
      const e = fds.get(fd);
      if (e.kind === "stdio" || !e.preopen) throw new Errno(ERRNO.badf);
      if (len < e.preopen.length) throw new Errno(ERRNO.nametoolong);
      mem.check(ptr, e.preopen.length);
      mem.bytes().set(e.preopen, ptr);
      return 0;
    },

    async fd_readdir(fd: number, buf: number, len: number, cookie: bigint, used: number) {
      const e = fds.file(fd);
      if (e.kind !== "dir") throw new Errno(ERRNO.notdir);
      mem.check(buf, len);
      mem.check(used, 4, 4);
      const start = BigInt.asUintN(64, cookie);
      if (start === 0n || !e.listing) e.listing = await listing(e);
      const list = e.listing;
      // Records go straight into the guest's buffer; a long listing gives the thread
      // back every CHUNK bytes (the buffer is the guest's, so at most its memory).
      let at = 0;
      let sinceYield = 0;
      for (let i = start < list.length ? Number(start) : list.length; i < list.length; i++) {
        if (at >= len) break;
        if (sinceYield >= CHUNK) {
          await new Promise<void>((r) => nextTurn(r));
          sinceYield = 0;
        }
        const entry = list[i];
        headerView.setBigUint64(D.d_next, BigInt(i + 1), true);
        headerView.setBigUint64(D.d_ino, entry.ino, true);
        headerView.setUint32(D.d_namlen, entry.name.length, true);
        headerView.setUint32(D.d_type, entry.type, true); // and its padding
        const bytes = mem.bytes();
        const h = Math.min(header.length, len - at);
        bytes.set(header.subarray(0, h), buf + at);
        at += h;
        const nm = Math.min(entry.name.length, len - at);
        bytes.set(entry.name.subarray(0, nm), buf + at);
        at += nm;
        sinceYield += h + nm;
      }
      mem.u32(used, at);
      return 0;
    },
  };
}

/** The listing of a folder for `fd_readdir`: `.`, `..`, then its entries with their inodes. */
async function listing(e: FileEntry): Promise<ListedEntry[]> {
  const { desc } = e;
  const self = await desc.mountStat();
  const entries = await desc.mount.readDir(desc.path);
  const parent = desc.path === "" ? self : await Promise.resolve()
    .then(() => desc.mount.stat(desc.path.split("/").slice(0, -1).join("/"), true))
    .catch(() => self);
  const out: ListedEntry[] = [
    { name: utf8("."), type: FILETYPE.directory, ino: BigInt.asUintN(64, self.ino) },
    { name: utf8(".."), type: FILETYPE.directory, ino: BigInt.asUintN(64, parent.ino) },
  ];
  for (const [i, entry] of entries.entries()) {
    // A folder of many entries is listed a few hundred stats a turn.
    if (i > 0 && i % 256 === 0) await new Promise<void>((r) => nextTurn(r));
    const path = desc.path === "" ? entry.name : `${desc.path}/${entry.name}`;
    let ino = 0n;
    try {
      ino = BigInt.asUintN(64, (await desc.mount.stat(path, false)).ino);
    } catch { /* gone meanwhile: listed without an inode */ }
    out.push({ name: utf8(entry.name), type: filetypeOf(entry.type), ino });
  }
  return out;
}
