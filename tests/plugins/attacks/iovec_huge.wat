;; One fd_write to stderr with two iovecs of 0xFFFFFFF0 bytes each, from a
;; module of one page: the host must not allocate or scan the sum (8 GiB).
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (func (export "_start") (local $errno i32)
    (i32.store (i32.const 0) (i32.const 256))          ;; iovec 0: buf
    (i32.store (i32.const 4) (i32.const 0xFFFFFFF0))   ;; iovec 0: len
    (i32.store (i32.const 8) (i32.const 256))          ;; iovec 1: buf
    (i32.store (i32.const 12) (i32.const 0xFFFFFFF0))  ;; iovec 1: len
    (local.set $errno (call $fd_write (i32.const 2) (i32.const 0) (i32.const 2) (i32.const 64)))
    (if (local.get $errno) (then (call $exit (local.get $errno))))
    ;; Written: at most what the memory holds is a short transfer.
    (call $exit (i32.const 100))))
