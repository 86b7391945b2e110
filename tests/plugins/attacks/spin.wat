;; The baseline: a plain loop that never ends (preempted like any guest's
;; code). What its neighbours wait is what "no more than any other
;; preempted guest" means for the other attacks.
(module
  (memory (export "memory") 1)
  (func (export "_start") (local $i i32)
    (loop $forever
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $forever))))
