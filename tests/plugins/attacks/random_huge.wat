;; 40 random_get calls of 250 MiB each: each must be filled in slices, with
;; the sandbox serving its other processes between them.
(module
  (import "wasi_snapshot_preview1" "random_get" (func $random (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 4000) ;; 250 MiB
  (func (export "_start") (local $i i32) (local $errno i32)
    (loop $each
      (local.set $errno (call $random (i32.const 0) (i32.const 262144000)))
      (if (local.get $errno) (then (call $exit (local.get $errno))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $each (i32.lt_u (local.get $i) (i32.const 40))))
    (call $exit (i32.const 0))))
