;; The fence: as "plant", a poll_oneoff of one 1.5 s timer whose event (its
;; userdata, a marker) lands in this memory when it fires: the test kills the
;; process before that. As "scan" (the method in the request), it sleeps 2.5 s
;; and then looks for the marker in its whole memory: 99 if found, else 0.
;; 300 pages, larger than any other plugin's, so a scan takes the memory the
;; plant left in the pool.
(module
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 300)
  (global $marker i64 (i64.const 0x5eb1a57ed0c0ffee))
  (func $sleep (param $ns i64) (param $userdata i64) (param $events i32) (result i32)
    (i64.store (i32.const 0) (local.get $userdata))
    (i32.store8 (i32.const 8) (i32.const 0))          ;; tag: clock
    (i32.store (i32.const 16) (i32.const 1))          ;; monotonic
    (i64.store (i32.const 24) (local.get $ns))
    (call $poll (i32.const 0) (local.get $events) (i32.const 1) (i32.const 60)))
  (func (export "_start") (local $p i32) (local $end i32)
    ;; The request line: "scan" in it makes this a scan.
    (i32.store (i32.const 1024) (i32.const 2048))
    (i32.store (i32.const 1028) (i32.const 4096))
    (drop (call $fd_read (i32.const 0) (i32.const 1024) (i32.const 1) (i32.const 1032)))
    (local.set $end (i32.add (i32.const 2048) (i32.load (i32.const 1032))))
    (local.set $p (i32.const 2048))
    (block $plant
      (loop $find
        (br_if $plant (i32.ge_u (i32.add (local.get $p) (i32.const 4)) (local.get $end)))
        (if (i32.eq (i32.load (local.get $p)) (i32.const 0x6e616373)) ;; "scan"
          (then
            (i32.store (i32.const 2048) (i32.const 0)) ;; wipe the request's own bytes
            (drop (call $sleep (i64.const 2500000000) (i64.const 1) (i32.const 8192)))
            ;; Look for the marker anywhere in memory (8-byte steps and every offset).
            (local.set $p (i32.const 0))
            (local.set $end (i32.sub (i32.mul (memory.size) (i32.const 65536)) (i32.const 8)))
            (loop $scan
              (if (i64.eq (i64.load (local.get $p)) (global.get $marker))
                (then (call $exit (i32.const 99))))
              (local.set $p (i32.add (local.get $p) (i32.const 1)))
              (br_if $scan (i32.lt_u (local.get $p) (local.get $end))))
            (call $exit (i32.const 0))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $find)))
    ;; plant: the event of this timer would carry the marker, written at 12 MiB.
    (call $exit (call $sleep (i64.const 1500000000) (global.get $marker) (i32.const 12582912)))))
