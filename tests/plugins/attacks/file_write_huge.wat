;; One fd_write of 250 MiB to a new file of the world (fd 3 is its root):
;; the write must go in chunks (or be short), not in one go.
(module
  (import "wasi_snapshot_preview1" "path_open"
    (func $open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 4002) ;; 250 MiB of data from 128 KiB on
  (data (i32.const 0) "big.bin")
  (func (export "_start") (local $errno i32)
    ;; path_open(3, follow, "big.bin", O_CREAT|O_TRUNC, rights: all, 0, fdflags 0, &fd at 16)
    (local.set $errno
      (call $open (i32.const 3) (i32.const 1) (i32.const 0) (i32.const 7) (i32.const 9)
        (i64.const 0x1fffffff) (i64.const 0x1fffffff) (i32.const 0) (i32.const 16)))
    (if (local.get $errno) (then (call $exit (local.get $errno))))
    (memory.fill (i32.const 131072) (i32.const 0x5a) (i32.const 262144000))
    (i32.store (i32.const 32) (i32.const 131072))
    (i32.store (i32.const 36) (i32.const 262144000))
    (local.set $errno (call $fd_write (i32.load (i32.const 16)) (i32.const 32) (i32.const 1) (i32.const 40)))
    (if (local.get $errno) (then (call $exit (local.get $errno))))
    (if (i32.lt_u (i32.load (i32.const 40)) (i32.const 262144000)) (then (call $exit (i32.const 100))))
    (call $exit (i32.const 0))))
