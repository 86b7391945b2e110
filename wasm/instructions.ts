/**
 * A walker over WebAssembly instructions that copies an expression and lets
 * the caller rewrite three things on the way: function indices (`call`,
 * `return_call`, `ref.func`), code after each `loop` header, and
 * `memory.grow`. It knows the immediates of the core spec with the
 * extensions compilers emit today (sign extension, saturating conversions,
 * bulk memory, reference types, multi-value, SIMD, threads, tail calls,
 * exceptions); anything else (GC instructions) is refused.
 *
 * @module
 */

import { type Reader, WasmFormatError, type Writer } from "./binary.ts";

/** What to change while copying. */
export interface ExpressionEdit {
  /** The new index of a function. */
  funcIndex(index: number): number;
  /** Writes code to run at the top of every loop iteration (after `loop bt`). */
  loopHeader?(w: Writer): void;
  /** Writes a replacement for `memory.grow` of memory 0 (the page delta is on the stack). */
  memoryGrow?(w: Writer): void;
  /** Told of every call: the callee's (old) index for a direct call, undefined for an indirect one. */
  onCall?(callee?: number): void;
  /**
   * Writes a replacement for `memory.fill` or `memory.copy` of memory 0
   * (their three operands are on the stack, and must be consumed).
   */
  bulkMemory?(w: Writer, op: "fill" | "copy"): void;
}

/** Reads a block type (empty, a value type, or a type index). */
function blockType(r: Reader): void {
  const t = r.signed();
  if (t === -29 || t === -28) r.signed(); // (ref null? ht)
}

/** Reads a value type. */
function valType(r: Reader): void {
  const b = r.u8();
  if (b === 0x63 || b === 0x64) r.signed();
}

/** Reads a memarg: alignment (with an optional memory index) and offset. */
function memarg(r: Reader): void {
  const align = r.u32();
  if (align & 0x40) r.u32();
  r.skipLeb();
}

/** The immediates of the 0xFC prefix, by sub-opcode. */
function prefixFC(r: Reader, op: number): void {
  if (op <= 7) return; // saturating truncations
  switch (op) {
    case 8: // memory.init
    case 12: // table.init
    case 14: // table.copy
      r.u32();
      r.u32();
      return;
    case 10: // memory.copy
      r.u32();
      r.u32();
      return;
    case 9: // data.drop
    case 11: // memory.fill
    case 13: // elem.drop
    case 15: // table.grow
    case 16: // table.size
    case 17: // table.fill
      r.u32();
      return;
    default:
      throw new WasmFormatError(`unsupported instruction 0xfc ${op}`);
  }
}

/** The immediates of the 0xFD prefix (SIMD), by sub-opcode. */
function prefixFD(r: Reader, op: number): void {
  if (op <= 11 || op === 92 || op === 93) return memarg(r);
  if (op === 12 || op === 13) return void r.take(16);
  if (op >= 21 && op <= 34) return void r.u8();
  if (op >= 84 && op <= 91) {
    memarg(r);
    r.u8();
  }
}

/**
 * Copies one expression from `r` to `w`, applying `edit`. A function body
 * ends where the reader ends (`untilEnd` false); a constant expression ends
 * at its final `end` (`untilEnd` true).
 */
export function copyExpression(
  r: Reader,
  w: Writer,
  edit: ExpressionEdit,
  untilEnd: boolean,
): void {
  let depth = 0;
  while (!r.done) {
    const start = r.pos;
    const op = r.u8();
    switch (op) {
      case 0x02: // block
      case 0x04: // if
      case 0x06: // try
        blockType(r);
        depth++;
        break;
      case 0x03: // loop
        blockType(r);
        depth++;
        w.bytes(r.bytes.subarray(start, r.pos));
        edit.loopHeader?.(w);
        continue;
      case 0x1f: { // try_table
        blockType(r);
        const n = r.u32();
        for (let i = 0; i < n; i++) {
          const kind = r.u8();
          if (kind < 2) r.u32();
          r.u32();
        }
        depth++;
        break;
      }
      case 0x0b: // end
        if (depth === 0 && untilEnd) {
          w.u8(op);
          return;
        }
        depth--;
        break;
      case 0x10: // call
      case 0x12: // return_call
      case 0xd2: { // ref.func
        const index = r.u32();
        if (op !== 0xd2) edit.onCall?.(index);
        w.u8(op).u32(edit.funcIndex(index));
        continue;
      }
      case 0x40: { // memory.grow
        const mem = r.u32();
        if (mem === 0 && edit.memoryGrow) {
          edit.memoryGrow(w);
          continue;
        }
        break;
      }
      case 0x14: // call_ref
      case 0x15: // return_call_ref
        edit.onCall?.();
        r.u32();
        break;
      case 0x0c: // br
      case 0x0d: // br_if
      case 0x07: // catch
      case 0x08: // throw
      case 0x09: // rethrow
      case 0x20: // local.get
      case 0x21: // local.set
      case 0x22: // local.tee
      case 0x23: // global.get
      case 0x24: // global.set
      case 0x25: // table.get
      case 0x26: // table.set
      case 0x3f: // memory.size
      case 0xd4: // br_on_null
      case 0xd6: // br_on_non_null
        r.u32();
        break;
      case 0x18: // delegate: ends its try
        r.u32();
        depth--;
        break;
      case 0x0e: { // br_table
        const n = r.u32();
        for (let i = 0; i <= n; i++) r.u32();
        break;
      }
      case 0x11: // call_indirect
      case 0x13: // return_call_indirect
        edit.onCall?.();
        r.u32();
        r.u32();
        break;
      case 0x1c: { // select t*
        const n = r.u32();
        for (let i = 0; i < n; i++) valType(r);
        break;
      }
      case 0x41: // i32.const
      case 0x42: // i64.const
        r.skipLeb();
        break;
      case 0x43: // f32.const
        r.take(4);
        break;
      case 0x44: // f64.const
        r.take(8);
        break;
      case 0xd0: // ref.null
        r.signed();
        break;
      case 0xfc: {
        const sub = r.u32();
        if ((sub === 10 || sub === 11) && edit.bulkMemory) {
          const imm = r.pos;
          const mem = r.u32(); // memory.copy: the destination's; memory.fill: its only one
          const ours = mem === 0 && (sub === 11 || r.u32() === 0);
          r.pos = imm;
          prefixFC(r, sub);
          if (ours) {
            edit.bulkMemory(w, sub === 11 ? "fill" : "copy");
            continue;
          }
          break;
        }
        prefixFC(r, sub);
        break;
      }
      case 0xfd:
        prefixFD(r, r.u32());
        break;
      case 0xfe: { // threads
        const sub = r.u32();
        if (sub === 0x03) r.u8();
        else memarg(r);
        break;
      }
      default:
        if (op >= 0x28 && op <= 0x3e) memarg(r);
        else if (
          op === 0x16 || op === 0x17 || op === 0x1d || op === 0x1e ||
          (op >= 0xc5 && op <= 0xcf) || op > 0xd6
        ) {
          throw new WasmFormatError(`unsupported instruction 0x${op.toString(16)} at ${start}`);
        }
        // everything else has no immediates
    }
    w.bytes(r.bytes.subarray(start, r.pos));
  }
  if (untilEnd) throw new WasmFormatError("a constant expression has no end");
}
