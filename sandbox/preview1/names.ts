/**
 * The names of preview 1 as the binding and the component cache use them:
 * the import module, every function (the cache checks a main module's
 * imports against this list to choose the engine), the ones that may wait,
 * and the file of a preview-1 cache entry. Constants only, so that the core
 * can read them without loading the sandbox's runtime.
 *
 * @module
 */

/** The file of a preview-1 cache entry: the rewritten main module. */
export const PREVIEW1_MAIN = "main.wasm";

/** The import module name of preview 1. */
export const PREVIEW1_MODULE = "wasi_snapshot_preview1";

/** The functions that may wait: bound as `WebAssembly.Suspending`. */
export const WAITING = new Set([
  "fd_read",
  "fd_pread",
  "fd_write",
  "fd_pwrite",
  "fd_seek",
  "fd_sync",
  "fd_datasync",
  "fd_filestat_get",
  "fd_filestat_set_size",
  "fd_filestat_set_times",
  "fd_readdir",
  "path_open",
  "path_create_directory",
  "path_remove_directory",
  "path_unlink_file",
  "path_rename",
  "path_link",
  "path_symlink",
  "path_readlink",
  "path_filestat_get",
  "path_filestat_set_times",
  "poll_oneoff",
  "random_get",
]);

/** Every function of `wasi_snapshot_preview1`, by name. */
export const PREVIEW1_FUNCTIONS: ReadonlySet<string> = new Set([
  ...WAITING,
  "args_get",
  "args_sizes_get",
  "environ_get",
  "environ_sizes_get",
  "clock_res_get",
  "clock_time_get",
  "fd_advise",
  "fd_allocate",
  "fd_close",
  "fd_fdstat_get",
  "fd_fdstat_set_flags",
  "fd_fdstat_set_rights",
  "fd_prestat_get",
  "fd_prestat_dir_name",
  "fd_renumber",
  "fd_tell",
  "proc_exit",
  "proc_raise",
  "sched_yield",
  "sock_accept",
  "sock_recv",
  "sock_send",
  "sock_shutdown",
]);
