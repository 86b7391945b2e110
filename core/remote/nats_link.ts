/**
 * The sandbox protocol over NATS: a {@link MessageLink} (`sandbox/hop/link.ts`)
 * whose carrier message is a NATS message. The messages sent in one turn
 * go out as one NATS message of frames (`sandbox/hop/frames.ts`), opened by a
 * lead frame that names the sender (`wire.ts`), split to fit the server's
 * `max_payload`. The subscriber of the peer's subject reads the lead (to
 * find the link) and hands the rest to {@link NatsLink.receive}, which
 * checks each message: one that fails closes the link. The host holds one
 * per worker (`remote_worker.ts`), a worker one to its host.
 *
 * @module
 */

import { Inbox, type MessageLink } from "../../sandbox/hop/link.ts";
import { FrameDecoder, FrameError } from "../../sandbox/hop/frames.ts";
import { type HostLead, publishFrames, type WorkerLead } from "./wire.ts";

/** What a {@link NatsLink} publishes with and how it checks what it receives. */
export interface NatsLinkOptions<Out, In> {
  client: { publish(subject: string, data: Uint8Array): void; maxPayload: number };
  /** Where its messages go (the peer's subject). */
  subject: string;
  /** The frame that opens each of its NATS messages. */
  lead: HostLead | WorkerLead;
  /** Turns a received message into an `In`, or throws (`protocol_check.ts`). */
  check: (msg: unknown) => In;
  /** Told of messages NATS would not take (it is down, or one is over `max_payload`). */
  dropped?: (msgs: Out[], e: unknown) => void;
  /**
   * Whether a message is likely followed at once by another (a process's
   * answer, then its exit): a batch that ends with one waits for the next
   * message that does not linger (it goes out with it, at the end of its
   * turn), or for a timer (~2 ms in Deno) if none comes, so that both go in
   * one NATS message.
   */
  linger?: (msg: Out) => boolean;
  /**
   * Sees each batch just before it is published, and returns what goes
   * (the host puts its drops of kept files first: `kept_files.ts`).
   */
  prepare?: (msgs: Out[]) => Out[];
}

/** A message link over NATS: one NATS message per turn's messages, each way. */
export class NatsLink<Out extends object, In> implements MessageLink<Out, In> {
  readonly closed: Promise<string>;
  private done: ((why: string) => void) | null = null;
  private pending: Out[] = [];
  /** The timer of a batch that lingers (its last message was marked `linger`). */
  private lingering: ReturnType<typeof setTimeout> | undefined;
  private inbox = new Inbox<In>();
  private decoder: FrameDecoder<In>;

  constructor(private opts: NatsLinkOptions<Out, In>) {
    this.closed = new Promise((r) => (this.done = r));
    this.decoder = new FrameDecoder(opts.check, (m) => {
      if (this.done) this.inbox.deliver(m);
    }, opts.client.maxPayload);
  }

  send(msg: Out): void {
    if (!this.done) return;
    const first = this.pending.push(msg) === 1;
    if (first) queueMicrotask(() => this.turn());
    else if (this.lingering !== undefined && !this.opts.linger?.(msg)) {
      // What the batch waited for came: it goes at the end of this turn.
      clearTimeout(this.lingering);
      this.lingering = undefined;
      queueMicrotask(() => this.turn());
    }
  }

  /** The end of a turn with pending messages: flush, or linger for the next message. */
  private turn(): void {
    if (this.lingering !== undefined) return;
    const last = this.pending.at(-1);
    if (last === undefined) return;
    if (this.opts.linger?.(last)) {
      this.lingering = setTimeout(() => {
        this.lingering = undefined;
        this.flush();
      }, 0);
    } else this.flush();
  }

  listen(on: (msg: In) => void): void {
    this.inbox.listen(on);
  }

  /**
   * One NATS message from the peer, the bytes after its lead frame: each
   * message is checked and delivered in order; a bad one closes the link
   * (those before it are delivered).
   */
  receive(frames: Uint8Array): void {
    if (!this.done) return;
    try {
      this.decoder.push(frames);
      if (this.decoder.pending) throw new FrameError("a message that ends inside a frame");
    } catch (e) {
      this.end(`its peer sent ${e instanceof Error ? e.message : e}`);
    }
  }

  close(why = "it was closed"): void {
    clearTimeout(this.lingering);
    this.lingering = undefined;
    this.flush();
    this.end(why);
  }

  private end(why: string): void {
    const done = this.done;
    this.done = null;
    done?.(why);
  }

  private flush(): void {
    if (this.pending.length === 0 || !this.done) return;
    let msgs = this.pending;
    this.pending = [];
    if (this.opts.prepare) msgs = this.opts.prepare(msgs);
    try {
      publishFrames(this.opts.client, this.opts.subject, this.opts.lead, msgs);
    } catch (e) {
      this.opts.dropped?.(msgs, e);
    }
  }
}
