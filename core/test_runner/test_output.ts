/**
 * What the runner prints: libtest's own report (`running N tests`, one line
 * per test, the failures with each failed test's output, `test result: …`),
 * made from the outcomes of tests that each ran in their own instance; and
 * the output of one instance with libtest's framing taken out.
 *
 * @module
 */

/** A line of a test's output, and the stream it came on. */
export interface OutputLine {
  stream: "stdout" | "stderr";
  line: string;
}

/** How one test ended. */
export interface TestOutcome {
  name: string;
  result: "ok" | "failed" | "ignored";
  /** Its output (stdout and stderr in order), libtest's framing taken out. */
  output: string[];
  /** Why it failed beyond its output: a trap, an exit status. */
  note?: string;
}

/** Totals of a run, for `test result:`. */
export interface TestTotals {
  passed: number;
  failed: number;
  ignored: number;
  filteredOut: number;
  seconds: number;
}

/** libtest's verdicts at the end of `test <name> ... `. */
const VERDICT = /(ok|FAILED|ignored(, .*)?)$/;

/**
 * The output of a test from the lines of its instance, which ran
 * `<binary> <name> --exact --nocapture`: libtest's lines (`running 1 test`,
 * the `test <name> ... ` prefix, the verdict, the failures list and
 * `test result:`) are taken out, the test's own lines stay, in order.
 */
export function testOutput(name: string, lines: OutputLine[]): string[] {
  const out = lines.map((l) => ({ ...l }));
  const isOut = (i: number) => out[i].stream === "stdout";
  const prefix = `test ${name} ... `;
  const start = out.findIndex((l) => l.stream === "stdout" && l.line.startsWith(prefix));
  if (start < 0) return lines.map((l) => l.line); // not libtest's output: keep it all
  const drop = new Set<number>();
  for (let i = 0; i < start; i++) {
    if (isOut(i) && (out[i].line === "" || /^running \d+ tests?$/.test(out[i].line))) drop.add(i);
  }
  out[start].line = out[start].line.slice(prefix.length);
  let end = -1;
  for (let i = out.length - 1; i > start; i--) {
    if (isOut(i) && out[i].line.startsWith("test result: ")) {
      end = i;
      break;
    }
  }
  if (end >= 0) {
    // After the verdict, libtest writes only its trailer: blank lines,
    // "failures:" / "successes:" and the indented names. The verdict ends
    // the last stdout line before that.
    for (let i = end; i < out.length; i++) if (isOut(i)) drop.add(i);
    let verdict = -1;
    for (let i = end - 1; i >= start; i--) {
      if (!isOut(i)) continue;
      const l = out[i].line;
      if (
        i > start && (l === "" || l === "failures:" || l === "successes:" || l === `    ${name}`)
      ) {
        drop.add(i);
        continue;
      }
      verdict = i;
      break;
    }
    if (verdict >= 0) {
      out[verdict].line = out[verdict].line.replace(VERDICT, "");
      if (out[verdict].line === "") drop.add(verdict);
    }
  } else if (out[start].line === "") {
    drop.add(start); // it ended (a trap) before its output or verdict
  }
  return out.filter((_, i) => !drop.has(i)).map((l) => l.line);
}

/** `1 test` / `2 tests`. */
function tests(n: number): string {
  return `${n} ${n === 1 ? "test" : "tests"}`;
}

/** Writes libtest's report as the outcomes come in. */
export class Report {
  private outcomes: TestOutcome[] = [];
  private column = 0;

  /**
   * @param write where the text goes (stdout)
   * @param format libtest's `pretty` or `terse`
   * @param showOutput print the output of passing tests too (`--show-output`)
   */
  constructor(
    private write: (text: string) => void,
    private format: "pretty" | "terse",
    private showOutput: boolean,
  ) {}

  /** `running N tests`. */
  start(count: number): void {
    this.write(`\nrunning ${tests(count)}\n`);
  }

  /** One finished (or ignored) test. */
  add(o: TestOutcome): void {
    this.outcomes.push(o);
    if (this.format === "terse") {
      this.write(o.result === "ok" ? "." : o.result === "failed" ? "F" : "i");
      if (++this.column % 88 === 0) this.write("\n");
    } else {
      this.write(`test ${o.name} ... ${o.result === "failed" ? "FAILED" : o.result}\n`);
    }
  }

  /** The output sections, the failures and `test result:`; returns the totals. */
  finish(filteredOut: number, seconds: number): TestTotals {
    if (this.format === "terse" && this.column % 88 !== 0) this.write("\n");
    const failed = this.outcomes.filter((o) => o.result === "failed");
    const passed = this.outcomes.filter((o) => o.result === "ok");
    if (this.showOutput) this.section("successes", passed.filter((o) => o.output.length));
    if (failed.length) this.section("failures", failed);
    const totals: TestTotals = {
      passed: passed.length,
      failed: failed.length,
      ignored: this.outcomes.filter((o) => o.result === "ignored").length,
      filteredOut,
      seconds,
    };
    this.write(`\n${resultLine(totals)}\n\n`);
    return totals;
  }

  private section(title: string, list: TestOutcome[]): void {
    if (!list.length && title === "successes") return;
    this.write(`\n${title}:\n\n`);
    for (const o of list) {
      const body = [...o.output, ...(o.note ? [o.note] : [])];
      this.write(`---- ${o.name} stdout ----\n${body.map((l) => l + "\n").join("")}\n`);
    }
    this.write(`\n${title}:\n${list.map((o) => `    ${o.name}\n`).join("")}`);
  }
}

/** libtest's `test result: ok. 5 passed; 0 failed; …` line. */
export function resultLine(t: TestTotals): string {
  return `test result: ${t.failed ? "FAILED" : "ok"}. ${t.passed} passed; ${t.failed} failed; ` +
    `${t.ignored} ignored; 0 measured; ${t.filteredOut} filtered out; finished in ${
      t.seconds.toFixed(2)
    }s`;
}

/** The test list as `--list` prints it (`name: test`, then the count unless terse). */
export function listText(names: string[], format: "pretty" | "terse"): string {
  const lines = names.map((n) => `${n}: test\n`).join("");
  if (format === "terse") return lines;
  return `${lines}${lines ? "\n" : ""}${tests(names.length)}, 0 benchmarks\n`;
}
