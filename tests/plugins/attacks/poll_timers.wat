;; One poll_oneoff of 341,000 subscriptions, each a 60-second relative
;; timer: the host must not make a timer (and a promise) per subscription.
(module
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 512) ;; 32 MiB: 16 MiB of subscriptions, 16 MiB of events
  (func (export "_start") (local $i i32) (local $p i32) (local $errno i32)
    (loop $each
      (local.set $p (i32.mul (local.get $i) (i32.const 48)))
      (i64.store (local.get $p) (i64.extend_i32_u (local.get $i))) ;; userdata
      (i32.store8 offset=8 (local.get $p) (i32.const 0))            ;; tag: clock
      (i32.store offset=16 (local.get $p) (i32.const 1))            ;; clock id: monotonic
      (i64.store offset=24 (local.get $p) (i64.const 60000000000))  ;; timeout: 60 s
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $each (i32.lt_u (local.get $i) (i32.const 341000))))
    (local.set $errno
      (call $poll (i32.const 0) (i32.const 16777216) (i32.const 341000) (i32.const 33554000)))
    (call $exit (local.get $errno))))
