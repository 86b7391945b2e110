/**
 * `NatsLink`'s batching: the messages of one turn go as one NATS message;
 * a batch that ends with a message marked to linger (a process's answer,
 * whose exit follows) waits for the next message, so what follows goes with
 * it, at the end of that message's turn (not a timer later); a timer sends it
 * alone if nothing follows. The publisher here records what it is given (the
 * link is what is tested; NATS itself is tested in tests/nats_client_test.ts).
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { NatsLink } from "./nats_link.ts";
import { readLead } from "./wire.ts";
import { decodeFrames } from "../../sandbox/hop/frames.ts";

type Msg = { op: string; n: number };

/** A link whose publishes are recorded as lists of the messages they carried. */
function recorded(linger?: (m: Msg) => boolean) {
  const sent: Msg[][] = [];
  const link = new NatsLink<Msg, Msg>({
    client: {
      maxPayload: 2 ** 20,
      publish: (_subject, data) => {
        const { rest } = readLead(data, (l) => l);
        sent.push(decodeFrames(rest, (m) => m as Msg, 2 ** 20));
      },
    },
    subject: "s",
    lead: { op: "worker", id: "w1", instance: "i" },
    check: (m) => m as Msg,
    linger,
  });
  return { link, sent };
}

/** Sends an answer, then (a microtask later, as a pipe's next read would) its exit. */
async function answerThenExit(link: NatsLink<Msg, Msg>): Promise<void> {
  link.send({ op: "out", n: 1 });
  await null;
  link.send({ op: "exit", n: 2 });
  await new Promise((r) => setTimeout(r, 10));
}

Deno.test("an answer and the exit that follows go in one NATS message when answers linger", async () => {
  const plain = recorded();
  await answerThenExit(plain.link);
  assert.deepEqual(plain.sent.map((b) => b.map((m) => m.op)), [["out"], ["exit"]]);
  const lingering = recorded((m) => m.op === "out");
  await answerThenExit(lingering.link);
  assert.deepEqual(lingering.sent.map((b) => b.map((m) => m.op)), [["out", "exit"]]);
  // A batch that does not end with an answer goes at the end of its turn.
  lingering.link.send({ op: "fs", n: 3 });
  await null;
  await null;
  assert.deepEqual(lingering.sent.at(-1)!.map((m) => m.op), ["fs"]);
});

Deno.test("a lingering answer goes with its exit at the end of the exit's turn, not a timer later", async () => {
  const lingering = recorded((m) => m.op === "out");
  lingering.link.send({ op: "out", n: 1 });
  await new Promise((r) => setTimeout(r, 0)); // a later read of the pipe
  // The timer of the answer alone has not fired: the exit comes before it would.
  const sentBefore = lingering.sent.length;
  lingering.link.send({ op: "exit", n: 2 });
  await null;
  await null;
  assert.deepEqual(lingering.sent.slice(sentBefore).map((b) => b.map((m) => m.op)), [[
    "out",
    "exit",
  ]]);
  // An answer that nothing follows goes alone, once its timer fires.
  lingering.link.send({ op: "out", n: 3 });
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(lingering.sent.at(-1)!.map((m) => m.op), ["out"]);
  lingering.link.close();
});
