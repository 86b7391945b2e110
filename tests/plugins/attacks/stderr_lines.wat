;; One fd_write of 64 MiB of "a\n" to stderr: 32 million lines at once. The
;; host must split and send them in batches within the output window.
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1030) ;; 64 MiB of text from 64 KiB on, the iovec below it
  (func (export "_start") (local $n i32) (local $errno i32)
    ;; "a\n" at 65536, then doubled by copies up to 64 MiB.
    (i32.store16 (i32.const 65536) (i32.const 0x0a61))
    (local.set $n (i32.const 2))
    (loop $double
      (memory.copy (i32.add (i32.const 65536) (local.get $n)) (i32.const 65536) (local.get $n))
      (local.set $n (i32.shl (local.get $n) (i32.const 1)))
      (br_if $double (i32.lt_u (local.get $n) (i32.const 67108864))))
    (i32.store (i32.const 0) (i32.const 65536))
    (i32.store (i32.const 4) (i32.const 67108864))
    (local.set $errno (call $fd_write (i32.const 2) (i32.const 0) (i32.const 1) (i32.const 8)))
    (if (local.get $errno) (then (call $exit (local.get $errno))))
    (if (i32.lt_u (i32.load (i32.const 8)) (i32.const 67108864)) (then (call $exit (i32.const 100))))
    (call $exit (i32.const 0))))
