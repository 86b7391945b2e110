/**
 * The test runner: `sausage test <binary.wasm> [libtest args]`, cargo's
 * runner for `wasm32-wasip1` and `wasm32-wasip2` test binaries.
 *
 * @module
 */

export { parseTestArgs, selected, type TestArgs, TestArgsError } from "./test_args.ts";
export { isLibtestHarness, type TestBinary, testBinary, wasmKind } from "./test_binary.ts";
export {
  listText,
  Report,
  resultLine,
  type TestOutcome,
  testOutput,
  type TestTotals,
} from "./test_output.ts";
export {
  EXIT_TESTS_FAILED,
  noPluginsMessage,
  runTests,
  type RunTestsOptions,
} from "./test_runner.ts";
