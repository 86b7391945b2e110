/**
 * The core's own caller: the host itself (boot) and in-process users of a
 * host (the console, a one-off call, the tests) make requests through the
 * router with it and get each answer back as a promise.
 *
 * @module
 */

import type { Message, Response } from "../rpc/message.ts";
import type { Caller, Process } from "./process.ts";
import type { Router } from "./router.ts";

/** A caller that the host itself uses (boot, one-off calls). */
export class LocalCaller implements Caller {
  /** The attached processes it started. */
  readonly children = new Set<Process>();
  /** Set by its user when it stops waiting: later answers are dropped. */
  hasEnded = false;
  private waiting = new Map<string | number, (msg: Response) => void>();
  private next = 0;

  /**
   * A caller named `name` (`SAUSAGE_PARENT` of the processes it starts);
   * `onNotify` gets the notifications it receives.
   */
  constructor(readonly name: string, private onNotify: (msg: Message) => void = () => {}) {}

  /** Hands a message to whoever waits for it. */
  deliver(msg: Message): void {
    if ("method" in msg) return this.onNotify(msg);
    const resolve = msg.id === null ? undefined : this.waiting.get(msg.id);
    if (resolve && msg.id !== null) {
      this.waiting.delete(msg.id);
      resolve(msg);
    }
  }

  /** Makes a request through `router` and resolves with the response. */
  call(router: Router, method: string, params: Record<string, unknown>): Promise<Response> {
    const id = `${this.name}-${++this.next}`;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      router.request(this, { jsonrpc: "2.0", id, method, params });
    });
  }
}
