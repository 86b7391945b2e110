/**
 * `wasi:filesystem/types` and `wasi:filesystem/preopens` over mounts. Every
 * guest path is resolved once against its descriptor into a checked
 * mount-relative path; mounts never see `..` or absolute paths. Mount errors
 * reach the guest as WIT `error-code`s.
 *
 * @module
 */

import {
  type FileHandle,
  FsError,
  type Mount,
  resolveGuestPath,
  type Stat,
} from "../../vfs/mount.ts";
import {
  type DescriptorFlags,
  descriptorStat,
  guard,
  hashOf,
  type NewTimestamp,
  type OpenFlags,
  type PathFlags,
  toInstant,
  trailingSlash,
} from "./filesystem_values.ts";
import { InputStream, IoError, MAX_READ, OutputStream } from "./streams.ts";
import { fileSink, fileSource } from "./file_streams.ts";

/** Registry of open file handles, closed when the process ends. */
export class OpenFiles {
  private handles = new Set<FileHandle>();
  /** Tracks a handle. */
  add(h: FileHandle): FileHandle {
    this.handles.add(h);
    return h;
  }
  /** Forgets a handle the guest closed. */
  delete(h: FileHandle): void {
    this.handles.delete(h);
  }
  /** Closes every handle (process end). */
  closeAll(): void {
    for (const h of this.handles) h.close();
    this.handles.clear();
  }
}

/** `wasi:filesystem/types.directory-entry-stream`. */
export class DirectoryEntryStream {
  /** @param entries the listing, taken when the stream was opened */
  constructor(private entries: { name: string; type: string }[]) {}
  /** The next entry, or undefined at the end. */
  readDirectoryEntry(): { name: string; type: string } | undefined {
    return this.entries.shift();
  }
}

/**
 * The longest guest path, in bytes (`name-too-long`, ENAMETOOLONG past it):
 * Linux's `PATH_MAX`, which wasmtime's hosts meet in the kernel; so no call
 * resolves a path of thousands of components.
 */
export const MAX_PATH = 4096;

/** `wasi:filesystem/types.descriptor`: an open file or directory on a mount. */
export class Descriptor {
  /**
   * @param mount the mount it lives on
   * @param path its checked, mount-relative path
   * @param file the open handle (files only)
   * @param flags the flags it was opened with
   * @param files the process's open-file registry
   */
  constructor(
    readonly mount: Mount,
    readonly path: string,
    readonly file: FileHandle | null,
    readonly flags: DescriptorFlags,
    private files: OpenFiles,
  ) {}

  /**
   * The mount path of `path` under this directory; a path that climbs
   * above this directory fails with `not-permitted` (as in wasmtime: a
   * descriptor grants its directory, not its parents).
   */
  private at(path: string): string {
    if (this.file) throw new FsError("not-directory");
    if (path.length > MAX_PATH) throw new FsError("name-too-long");
    resolveGuestPath("", path);
    return resolveGuestPath(this.path, path);
  }

  private need(): FileHandle {
    if (!this.file) throw new FsError("is-directory");
    return this.file;
  }

  private mutable(): Mount {
    if (!this.mount.writable) throw new FsError("read-only");
    return this.mount;
  }

  /**
   * The mount path of a guest path under this directory (`at`); with a
   * trailing slash it must name a folder (`no-entry` when nothing is there,
   * `not-directory` for anything else).
   */
  private async folderAwareAt(path: string): Promise<string> {
    const target = this.at(path);
    if (!trailingSlash(path)) return target;
    if ((await this.mount.stat(target, true)).type !== "directory") {
      throw new FsError("not-directory", `${path}: not a folder`);
    }
    return target;
  }

  /**
   * For the new name of a link with a trailing slash: nothing there is
   * `no-entry`, a folder `exist`, anything else `not-directory` (as Linux).
   */
  private async newLinkName(path: string, target: string): Promise<void> {
    if (!trailingSlash(path)) return;
    const st = await this.mount.stat(target, false);
    throw new FsError(st.type === "directory" ? "exist" : "not-directory");
  }

  /** An input stream reading the file from `offset`. */
  readViaStream(offset: bigint): Promise<InputStream> {
    return guard(() => {
      const file = this.need();
      if (!this.flags.read) throw new FsError("bad-descriptor");
      return new InputStream(fileSource(file, Number(offset)));
    });
  }

  /** An output stream writing the file from `offset`. */
  writeViaStream(offset: bigint): Promise<OutputStream> {
    return guard(() => {
      const file = this.need();
      if (!this.flags.write) throw new FsError("bad-descriptor");
      let pos = Number(offset);
      return new OutputStream(fileSink(file, (n) => {
        const at = pos;
        pos += n;
        return at;
      }));
    });
  }

  /** An output stream appending to the file. */
  appendViaStream(): Promise<OutputStream> {
    return guard(() => {
      const file = this.need();
      if (!this.flags.write) throw new FsError("bad-descriptor");
      return new OutputStream(fileSink(file, null));
    });
  }

  /** Accepted and ignored. */
  advise(): void {}

  /** Flushes file data. */
  syncData(): Promise<void> {
    return guard(() => this.file?.sync());
  }

  /** Flushes file data and metadata. */
  sync(): Promise<void> {
    return guard(() => this.file?.sync());
  }

  /** The flags it was opened with. */
  getFlags(): DescriptorFlags {
    return this.flags;
  }

  /** Its type: a descriptor without a file handle is a directory (mounts open nothing else). */
  getType(): string {
    return this.file ? "regular-file" : "directory";
  }

  /** Truncates or extends the file. */
  setSize(size: bigint): Promise<void> {
    return guard(() => {
      if (!this.flags.write) throw new FsError("bad-descriptor");
      return this.need().truncate(Number(size));
    });
  }

  /** Sets its access and modification times. */
  setTimes(atime: NewTimestamp, mtime: NewTimestamp): Promise<void> {
    return guard(() =>
      this.mutable().setTimes(this.path, toInstant(atime), toInstant(mtime), true)
    );
  }

  /** Reads up to `length` bytes at `offset`; the flag says whether the end was reached. */
  read(length: bigint, offset: bigint): Promise<[Uint8Array, boolean]> {
    return guard(async () => {
      if (!this.flags.read) throw new FsError("bad-descriptor");
      // At most MAX_READ a call: a short read that is not the end says so (false).
      const want = length < MAX_READ ? Number(length) : MAX_READ;
      const bytes = await this.need().read(want, Number(offset));
      return [bytes, bytes.length < want] as [Uint8Array, boolean];
    });
  }

  /** Writes `buffer` at `offset`. */
  write(buffer: Uint8Array, offset: bigint): Promise<bigint> {
    return guard(async () => {
      if (!this.flags.write) throw new FsError("bad-descriptor");
      // At most MAX_READ a call (the count tells the guest; it writes the rest next).
      return BigInt(await this.need().write(buffer.subarray(0, MAX_READ), Number(offset)));
    });
  }

  /** Lists the directory. */
  readDirectory(): Promise<DirectoryEntryStream> {
    return guard(async () => {
      if (this.file) throw new FsError("not-directory");
      return new DirectoryEntryStream(await this.mount.readDir(this.path));
    });
  }

  /** Creates a directory. */
  createDirectoryAt(path: string): Promise<void> {
    return guard(() => this.mutable().mkdir(this.at(path)));
  }

  /** Its stat. */
  stat(): Promise<ReturnType<typeof descriptorStat>> {
    return guard(async () => descriptorStat(await this.mountStat()));
  }

  /** Its stat as the mount gives it (with the inode: preview 1's `filestat`). */
  async mountStat(): Promise<Stat> {
    return this.file ? await this.file.stat() : await this.mount.stat(this.path, true);
  }

  /** The stat of a path under this directory. */
  statAt(flags: PathFlags, path: string): Promise<ReturnType<typeof descriptorStat>> {
    return guard(async () => descriptorStat(await this.mountStatAt(flags, path)));
  }

  /** The stat of a path under this directory as the mount gives it (with the inode). */
  async mountStatAt(flags: PathFlags, path: string): Promise<Stat> {
    const target = await this.folderAwareAt(path);
    return await this.mount.stat(target, !!flags.symlinkFollow);
  }

  /** Sets the times of a path under this directory. */
  setTimesAt(
    flags: PathFlags,
    path: string,
    atime: NewTimestamp,
    mtime: NewTimestamp,
  ): Promise<void> {
    return guard(async () => {
      const target = await this.folderAwareAt(path);
      return this.mutable().setTimes(
        target,
        toInstant(atime),
        toInstant(mtime),
        !!flags.symlinkFollow,
      );
    });
  }

  /** Makes `newPath` under `newDir` a hard link to the file at `oldPath` (one mount only). */
  linkAt(flags: PathFlags, oldPath: string, newDir: Descriptor, newPath: string): Promise<void> {
    return guard(async () => {
      if (newDir.mount !== this.mount) throw new FsError("cross-device");
      const to = newDir.at(newPath);
      const from = await this.folderAwareAt(oldPath);
      await newDir.newLinkName(newPath, to);
      return this.mutable().link(from, to, !!flags.symlinkFollow);
    });
  }

  /** Opens a path under this directory. */
  openAt(
    pathFlags: PathFlags,
    path: string,
    open: OpenFlags,
    flags: DescriptorFlags,
  ): Promise<Descriptor> {
    return guard(async () => {
      const target = this.at(path);
      const writes = !!(flags.write || open.create || open.truncate);
      if (writes && !this.mount.writable) throw new FsError("read-only");
      const slash = trailingSlash(path);
      const file = await this.mount.open(target, {
        read: !!flags.read,
        write: !!flags.write,
        create: !!open.create,
        exclusive: !!open.exclusive,
        truncate: !!open.truncate,
        directory: !!open.directory || slash,
        nofollow: !pathFlags.symlinkFollow && !slash,
      });
      return new Descriptor(this.mount, target, file && this.files.add(file), flags, this.files);
    });
  }

  /** The target of a symlink. */
  readlinkAt(path: string): Promise<string> {
    return guard(() => this.mount.readlink(this.at(path)));
  }

  /** Removes an empty directory. */
  removeDirectoryAt(path: string): Promise<void> {
    return guard(() => this.mutable().rmdir(this.at(path)));
  }

  /** Renames within one mount; a trailing slash on either name needs a folder to move. */
  renameAt(oldPath: string, newDir: Descriptor, newPath: string): Promise<void> {
    return guard(async () => {
      if (newDir.mount !== this.mount) throw new FsError("cross-device");
      const from = this.at(oldPath);
      const to = newDir.at(newPath);
      if (trailingSlash(oldPath) || trailingSlash(newPath)) {
        if ((await this.mount.stat(from, false)).type !== "directory") {
          throw new FsError("not-directory");
        }
      }
      return this.mutable().rename(from, to);
    });
  }

  /** Creates a symlink. */
  symlinkAt(oldPath: string, newPath: string): Promise<void> {
    return guard(async () => {
      if (oldPath.length > MAX_PATH) throw new FsError("name-too-long");
      const to = this.at(newPath);
      await this.newLinkName(newPath, to);
      return this.mutable().symlink(oldPath, to);
    });
  }

  /** Removes a file; with a trailing slash, the name is a folder (`is-directory`) or wrong. */
  unlinkFileAt(path: string): Promise<void> {
    return guard(async () => {
      const target = this.at(path);
      if (trailingSlash(path)) {
        const st = await this.mount.stat(target, true);
        throw new FsError(st.type === "directory" ? "is-directory" : "not-directory");
      }
      return this.mutable().unlink(target);
    });
  }

  /** True when both name the same file. */
  isSameObject(other: Descriptor): boolean {
    return other.mount === this.mount && other.path === this.path;
  }

  /** A hash of the file's identity and times. */
  metadataHash(): Promise<{ lower: bigint; upper: bigint }> {
    return guard(async () =>
      hashOf(this.file ? await this.file.stat() : await this.mount.stat(this.path, true))
    );
  }

  /** The metadata hash of a path under this directory. */
  metadataHashAt(flags: PathFlags, path: string): Promise<{ lower: bigint; upper: bigint }> {
    return guard(async () => {
      const target = await this.folderAwareAt(path);
      return hashOf(await this.mount.stat(target, !!flags.symlinkFollow));
    });
  }

  /** Called by the glue when the guest drops the descriptor. */
  [Symbol.dispose](): void {
    if (this.file) {
      this.files.delete(this.file);
      this.file.close();
    }
  }
}

/** A mount as a preopened directory under a guest path. */
export interface Preopen {
  guestPath: string;
  mount: Mount;
}

/** Builds the `wasi:filesystem/*` interfaces of one process. */
export function filesystemInterfaces(
  preopens: Preopen[],
  files: OpenFiles,
): Record<string, unknown> {
  const dirFlags: DescriptorFlags = { read: true, write: true, mutateDirectory: true };
  const dirs = preopens.map((p) => [
    new Descriptor(p.mount, "", null, p.mount.writable ? dirFlags : { read: true }, files),
    p.guestPath,
  ]);
  return {
    "wasi:filesystem/types": {
      Descriptor,
      DirectoryEntryStream,
      filesystemErrorCode: (e: IoError) => e.code,
    },
    "wasi:filesystem/preopens": { getDirectories: () => dirs },
  };
}
