/**
 * One outbound stream of the HTTP server transport (http-server.ts): the
 * server-sent events waiting for the connection's or a session's SSE
 * response, at most one reader at a time, and that reader's response body.
 * Messages wait here while no reader is attached or the reader is behind;
 * the queue is bounded by `maxBufferedBytes` (`push` says when it is
 * exceeded, the connection then closes). Only structural types are used.
 */
import { joinBytes, type WebReadable } from "./transport.js";

declare const TextEncoder: new () => { encode(text: string): Uint8Array };
declare function setTimeout(callback: () => void, ms: number): unknown;
declare function clearTimeout(handle: unknown): void;

/** What a `ReadableStream` hands its underlying source, as far as this module uses it. */
interface StreamController {
  enqueue(chunk: Uint8Array): void;
  close(): void;
}

declare const ReadableStream: new (
  source: { pull(controller: StreamController): Promise<void>; cancel(): void },
  strategy: { highWaterMark: number },
) => WebReadable;

/** How often a waiting SSE reader gets a comment line, so that proxies keep the idle stream open. */
const KEEP_ALIVE_MS = 15_000;
/** The most bytes of queued events a reader takes as one chunk. */
const COALESCE_BYTES = 64 * 1024;
const encoder = new TextEncoder();
const KEEP_ALIVE = encoder.encode(":\n\n");

/** What an outbox tells its connection. */
export interface OutboxEvents {
  /** A reader took the event that carried the agent's request `callKey`. */
  delivered(callKey: string): void;
  /** A reader attached (`true`) or left (`false`). */
  readerChanged(attached: boolean): void;
}

interface QueuedEvent {
  readonly bytes: Uint8Array;
  readonly callKey: string | undefined;
}

/** The reading end of an outbox, held by one SSE response at a time. */
export interface OutboxReader {
  /** The next event's bytes (a keep-alive comment after a quiet while); `undefined` once the stream ended or the reader left. */
  next(): Promise<Uint8Array | undefined>;
  /** Detaches the reader (the response ended or its client went away); events queued later wait for the next reader. */
  release(): void;
}

/** The events of one outbound stream, queued until its reader takes them. */
export class Outbox {
  private queue: (QueuedEvent | undefined)[] = [];
  private head = 0;
  private reader: OutboxReader | undefined;
  private waiting: ((bytes: Uint8Array | undefined) => void) | undefined;
  private finished = false;
  /** Bytes of the queued events. */
  bytes = 0;

  constructor(
    private readonly maxBufferedBytes: number,
    private readonly events: OutboxEvents,
  ) {}

  /** True when a reader is attached. */
  get attached(): boolean {
    return this.reader !== undefined;
  }

  /** True when nothing is queued. */
  get empty(): boolean {
    return this.head === this.queue.length;
  }

  /**
   * Queues one message (its JSON text, one line) as an SSE event, or hands
   * it to the waiting reader. False when the queue now holds more than
   * `maxBufferedBytes` (the event is not kept; the caller closes the
   * connection).
   */
  push(line: string, callKey?: string): boolean {
    if (this.finished) return true;
    const bytes = encoder.encode(`data: ${line}\n\n`);
    if (this.waiting !== undefined) return this.hand(bytes, callKey), true;
    if (this.bytes + bytes.length > this.maxBufferedBytes) return false;
    this.queue.push({ bytes, callKey });
    this.bytes += bytes.length;
    return true;
  }

  /** Attaches a reader; `undefined` when one is attached already or the stream ended. */
  attach(): OutboxReader | undefined {
    if (this.reader !== undefined || this.finished) return undefined;
    const reader: OutboxReader = {
      next: () => (this.reader === reader ? this.next() : Promise.resolve(undefined)),
      release: () => this.release(reader),
    };
    this.reader = reader;
    this.events.readerChanged(true);
    return reader;
  }

  /** Ends the stream: the reader gets what is queued (none when `discard`), then the end. */
  finish(discard: boolean): void {
    this.finished = true;
    if (discard) {
      this.queue = [];
      this.head = 0;
      this.bytes = 0;
    }
    if (this.empty) this.wakeReader(undefined);
  }

  private next(): Promise<Uint8Array | undefined> {
    const event = this.take();
    if (event !== undefined) return Promise.resolve(event);
    if (this.finished) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wakeReader(KEEP_ALIVE), KEEP_ALIVE_MS);
      (timer as { unref?(): void }).unref?.();
      this.waiting = (bytes) => {
        clearTimeout(timer);
        resolve(bytes);
      };
    });
  }

  /**
   * The queued events' bytes, oldest first, joined into one chunk of up to
   * `COALESCE_BYTES` (or one larger event), each reported as delivered:
   * one write for a burst of events instead of one per event; `undefined`
   * when none is queued.
   */
  private take(): Uint8Array | undefined {
    const first = this.takeOne();
    if (first === undefined || this.empty || first.length >= COALESCE_BYTES) return first;
    const parts = [first];
    let size = first.length;
    while (!this.empty && size + this.queue[this.head]!.bytes.length <= COALESCE_BYTES) {
      const next = this.takeOne()!;
      parts.push(next);
      size += next.length;
    }
    return parts.length === 1 ? first : joinBytes(parts, new Uint8Array(0), size);
  }

  /** The oldest queued event's bytes, reported as delivered; `undefined` when none is queued. */
  private takeOne(): Uint8Array | undefined {
    const event = this.queue[this.head];
    if (event === undefined) return undefined;
    this.queue[this.head] = undefined;
    this.head++;
    this.bytes -= event.bytes.length;
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    if (event.callKey !== undefined) this.events.delivered(event.callKey);
    return event.bytes;
  }

  private hand(bytes: Uint8Array, callKey: string | undefined): void {
    this.wakeReader(bytes);
    if (callKey !== undefined) this.events.delivered(callKey);
  }

  private wakeReader(bytes: Uint8Array | undefined): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.(bytes);
  }

  private release(reader: OutboxReader): void {
    if (this.reader !== reader) return;
    this.reader = undefined;
    this.wakeReader(undefined);
    this.events.readerChanged(false);
  }
}

/**
 * The same body as `sseBody`, as a plain object with `getReader()` only and
 * no `ReadableStream`: for a server adapter that reads bodies that way
 * (http-node.ts). Each `read` takes the next chunk; the end (or `cancel`)
 * releases the reader.
 */
export function plainSseBody(reader: OutboxReader): WebReadable {
  const read = async (): Promise<{ done: boolean; value?: Uint8Array }> => {
    const bytes = await reader.next();
    if (bytes !== undefined) return { done: false, value: bytes };
    reader.release();
    return { done: true };
  };
  const cancel = async (): Promise<void> => reader.release();
  return { getReader: () => ({ read, cancel }) };
}

/**
 * The body of an SSE response reading `reader`: one event per message, taken
 * only when the body's consumer asks for the next chunk (so an unread
 * stream's messages stay queued, and counted, in the outbox). Cancelling the
 * body (the client went away) releases the reader.
 */
export function sseBody(reader: OutboxReader): WebReadable {
  return new ReadableStream(
    {
      async pull(controller) {
        const bytes = await reader.next();
        try {
          if (bytes !== undefined) return controller.enqueue(bytes);
          reader.release();
          controller.close();
        } catch {
          reader.release(); // the body was cancelled meanwhile
        }
      },
      cancel: () => reader.release(),
    },
    { highWaterMark: 0 },
  );
}
