;; Traps at once, whatever the method (a plugin whose discovery fails).
(module
  (memory (export "memory") 1)
  (func (export "_start") unreachable))
