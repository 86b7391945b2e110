// The TypeScript SDK of Sausage plugins (docs/languages.md, "TypeScript"): what a plugin's
// code can use. Kept by `sausage new`; the runtime behind it is the host's own.
declare module "sausage" {
  /** A whole number: `number` in TypeScript, `"integer"` in the rpc.discover document. */
  export type integer = number;

  /** A JSON-RPC error. Thrown by a method, it is the call's error answer (its code, message, data). */
  export class RpcError extends Error {
    constructor(code: number, message: string, data?: unknown);
    readonly code: number;
    readonly data?: unknown;
  }

  /**
   * Calls a method of another plugin (`"notes.add"`) or of the core (`"core.lock"`) and
   * waits for its answer; throws an RpcError with the callee's error.
   */
  export function call(method: string, params?: Record<string, unknown>): unknown;

  /** Sends a notification: no answer (`core.notify` to report progress to the caller). */
  export function notify(method: string, params?: Record<string, unknown>): void;

  /** A structured log event in the journal (`sausage log <world> --level warn`). */
  export function log(
    level: "trace" | "debug" | "info" | "warn" | "error",
    message: string,
    fields?: Record<string, unknown>,
  ): void;

  /** The files of the world, as a process sees them (`/state/<plugin>/…`, `/proc/…`). */
  export const fs: {
    /** The file's text; throws when it cannot be read. */
    readText(path: string): string;
    /** The file's text, or `fallback` when it cannot be read. */
    readTextOr(path: string, fallback: string): string;
    /** Writes the whole file. */
    writeText(path: string, text: string): void;
    /** Makes a folder and those above it. */
    mkdir(path: string): void;
  };

  /** This plugin's state folder, `/state/<plugin>`, made when missing. */
  export function stateDir(): string;

  /** In a test (`*_test.ts`): fails the test when `condition` is falsy. */
  export function assert(condition: unknown, message?: string): asserts condition;

  /** In a test (`*_test.ts`): fails the test when `actual` and `expected` differ as JSON. */
  export function assertEquals(actual: unknown, expected: unknown, message?: string): void;
}
