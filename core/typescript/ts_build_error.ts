/**
 * The error of a TypeScript plugin's build, apart from the compiler so that
 * the host's thread can name it without loading the compiler
 * (`ts_compiler.ts`).
 *
 * @module
 */

/** A build error of a TypeScript plugin: the compiler's or the document's messages. */
export class TsBuildError extends Error {
  /**
   * @param message one line: what failed
   * @param output the messages, each with its file and line
   */
  constructor(message: string, readonly output: string) {
    super(message);
    this.name = "BuildError";
  }
}
