/**
 * The `path_*` functions of preview 1, over the folder descriptors of the
 * fd table: each is the component path's `Descriptor` method (the same
 * checks of `..`, trailing slashes, read-only mounts and links), so both
 * engines resolve guest paths alike.
 *
 * @module
 */

import type { Preview1Context, Preview1Fn } from "./context.ts";
import { ERRNO, errnoOf } from "./errno.ts";
import type { DescriptorFlags } from "../wasi/filesystem_values.ts";
import { FDFLAGS, OFLAGS, RIGHTS, SYMLINK_FOLLOW, timesOf, writeFilestat } from "./values.ts";

/** The `path_*` functions of one process. */
export function pathOps(ctx: Preview1Context): Record<string, Preview1Fn> {
  const { mem, fds } = ctx;
  const dir = (fd: number) => fds.dir(fd).desc;
  const follow = (flags: number) => ({ symlinkFollow: !!(flags & SYMLINK_FOLLOW) });

  return {
    async path_open(
      fd: number,
      dirflags: number,
      path: number,
      len: number,
      oflags: number,
      rightsBase: bigint,
      _rightsInheriting: bigint,
      fdflags: number,
      out: number,
    ) {
      const at = dir(fd);
      const name = mem.string(path, len);
      const flags: DescriptorFlags = {};
      if (rightsBase & RIGHTS.fdRead) flags.read = true;
      // O_TRUNC writes, whatever the rights say (as on Linux and wasmtime).
      if (rightsBase & RIGHTS.fdWrite || oflags & OFLAGS.trunc) flags.write = true;
      if (fdflags & FDFLAGS.sync) flags.fileIntegritySync = true;
      if (fdflags & FDFLAGS.dsync) flags.dataIntegritySync = true;
      if (fdflags & FDFLAGS.rsync) flags.requestedWriteSync = true;
      const open = {
        create: !!(oflags & OFLAGS.creat),
        directory: !!(oflags & OFLAGS.directory),
        exclusive: !!(oflags & OFLAGS.excl),
        truncate: !!(oflags & OFLAGS.trunc),
      };
      let desc;
      try {
        desc = await at.openAt(follow(dirflags), name, open, flags);
      } catch (e) {
        // Write rights on a folder opened without O_DIRECTORY: a folder, opened as one (wasmtime).
        if (!flags.write || open.create || open.truncate || open.directory) throw e;
        if (errnoOf(e) !== ERRNO.isdir) throw e;
        desc = await at.openAt(follow(dirflags), name, open, { ...flags, write: false });
        if (desc.file) {
          desc[Symbol.dispose]();
          throw e;
        }
      }
      let opened: number;
      try {
        opened = fds.add({
          kind: desc.file ? "file" : "dir",
          desc,
          pos: 0,
          append: !!(fdflags & FDFLAGS.append),
          fdflags: fdflags & ~FDFLAGS.append,
        });
      } catch (e) {
        desc[Symbol.dispose]();
        throw e;
      }
      mem.u32(out, opened);
      return 0;
    },

    async path_create_directory(fd: number, path: number, len: number) {
      await dir(fd).createDirectoryAt(mem.string(path, len));
      return 0;
    },

    async path_remove_directory(fd: number, path: number, len: number) {
      await dir(fd).removeDirectoryAt(mem.string(path, len));
      return 0;
    },

    async path_unlink_file(fd: number, path: number, len: number) {
      await dir(fd).unlinkFileAt(mem.string(path, len));
      return 0;
    },

    async path_rename(
      fd: number,
      old: number,
      oldLen: number,
      newFd: number,
      to: number,
      toLen: number,
    ) {
      const from = dir(fd);
      await from.renameAt(mem.string(old, oldLen), dir(newFd), mem.string(to, toLen));
      return 0;
    },

    async path_link(
      fd: number,
      flags: number,
      old: number,
      oldLen: number,
      newFd: number,
      to: number,
      toLen: number,
    ) {
      const from = dir(fd);
      await from.linkAt(follow(flags), mem.string(old, oldLen), dir(newFd), mem.string(to, toLen));
      return 0;
    },

    async path_symlink(old: number, oldLen: number, fd: number, to: number, toLen: number) {
      await dir(fd).symlinkAt(mem.string(old, oldLen), mem.string(to, toLen));
      return 0;
    },

    async path_readlink(
      fd: number,
      path: number,
      len: number,
      buf: number,
      bufLen: number,
      used: number,
    ) {
      mem.check(buf, bufLen);
      const target = new TextEncoder().encode(await dir(fd).readlinkAt(mem.string(path, len)));
      const n = Math.min(target.length, bufLen);
      mem.bytes().set(target.subarray(0, n), buf);
      mem.u32(used, n);
      return 0;
    },

    async path_filestat_get(fd: number, flags: number, path: number, len: number, out: number) {
      const at = dir(fd);
      const st = await at.mountStatAt(follow(flags), mem.string(path, len));
      writeFilestat(mem, out, st, ctx.devOf(at.mount));
      return 0;
    },

    async path_filestat_set_times(
      fd: number,
      flags: number,
      path: number,
      len: number,
      atim: bigint,
      mtim: bigint,
      fst: number,
    ) {
      const at = dir(fd);
      const [a, m] = timesOf(atim, mtim, fst);
      await at.setTimesAt(follow(flags), mem.string(path, len), a, m);
      return 0;
    },
  };
}
