/**
 * The far end of an in-memory transport driven by hand: send any line, read
 * the lines the connection under test writes. For the wire-level tests of
 * test/connection.test.ts.
 */
import type { Transport } from "../../generated/src/runtime/transport.js";

export interface RawPeer {
  /** Writes a line as is. */
  send(line: string): Promise<void>;
  /** Writes a value as JSON. */
  sendJson(value: unknown): Promise<void>;
  /** The next line the connection writes, parsed. */
  next(): Promise<any>;
  /** Lines received and not yet taken by `next`. */
  readonly received: unknown[];
  /** Resolves when the connection closed its end. */
  readonly ended: Promise<void>;
  close(): void;
}

/** Starts `transport` as a raw peer. */
export function rawPeer(transport: Transport): RawPeer {
  const received: unknown[] = [];
  const waiting: ((value: unknown) => void)[] = [];
  let markEnded!: () => void;
  const ended = new Promise<void>((resolve) => (markEnded = resolve));
  transport.start({
    line(text) {
      const value: unknown = JSON.parse(text);
      const waiter = waiting.shift();
      if (waiter) waiter(value);
      else received.push(value);
    },
    lines(texts) {
      for (const text of texts) this.line(text);
    },
    problem() {},
    end: () => markEnded(),
  });
  return {
    send: (line) => transport.send(line),
    sendJson: (value) => transport.send(JSON.stringify(value)),
    next: () => (received.length ? Promise.resolve(received.shift()) : new Promise((resolve) => waiting.push(resolve))),
    received,
    ended,
    close: () => transport.close(),
  };
}

/** Waits until queued microtasks and one macrotask turn have run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
