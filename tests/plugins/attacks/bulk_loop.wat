;; memory.fill / memory.copy over 192 MiB, in a loop, after a cheap loop
;; that makes the fuel period long: neighbours must wait no more than any
;; other preempted guest makes them. Runs 60 rounds, then exits 0.
(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 3073) ;; 192 MiB + 64 KiB
  (func (export "_start") (local $round i32) (local $spin i32)
    (loop $rounds
      ;; a cheap loop: the host adapts the fuel to many iterations per check
      (local.set $spin (i32.const 0))
      (loop $cheap
        (local.set $spin (i32.add (local.get $spin) (i32.const 1)))
        (br_if $cheap (i32.lt_u (local.get $spin) (i32.const 2000000))))
      (memory.fill (i32.const 0) (local.get $round) (i32.const 201326592))
      (memory.copy (i32.const 100663296) (i32.const 0) (i32.const 100663296))
      (memory.copy (i32.const 0) (i32.const 65536) (i32.const 201261056))
      (local.set $round (i32.add (local.get $round) (i32.const 1)))
      (br_if $rounds (i32.lt_u (local.get $round) (i32.const 60))))
    (call $exit (i32.const 0))))
