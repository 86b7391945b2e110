;; One poll_oneoff over every 48 bytes of 125 MiB of zeroed memory: 2.7
;; million clock subscriptions (realtime, timeout 0). The host must refuse
;; past its documented bound (EINVAL) or work without an object per entry.
(module
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 2000)
  (func (export "_start") (local $errno i32)
    ;; subscriptions at 0, events at 0 as well (same zeroed memory), count 2,730,000
    (local.set $errno (call $poll (i32.const 0) (i32.const 0) (i32.const 2730000) (i32.const 64)))
    (call $exit (local.get $errno))))
