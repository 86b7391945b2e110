;; A module of 250 MiB of initial memory that sleeps 3 s (one clock
;; subscription) and exits 0: its memory must be counted against
;; memory_mib and world_memory_mib before it is instantiated.
(module
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 4000)
  (func (export "_start")
    (i32.store8 (i32.const 8) (i32.const 0))           ;; tag: clock
    (i32.store (i32.const 16) (i32.const 1))           ;; monotonic
    (i64.store (i32.const 24) (i64.const 3000000000))  ;; 3 s
    (call $exit (call $poll (i32.const 0) (i32.const 64) (i32.const 1) (i32.const 128)))))
