/**
 * Transports for the connection: newline-delimited JSON over Web Streams or
 * Node streams (`ndJsonStream`), and a connected in-memory pair for tests
 * (`inMemoryTransports`). A transport moves lines of text; the connection
 * parses them. Only structural types are used, so the package needs no DOM
 * or Node type library.
 */
import { errorMessage } from "./describe.js";

/** What a transport delivers to the connection it was started by. */
export interface LineSink {
  /** One line of text without its line ending; blank lines are never delivered. A custom transport may deliver every line this way. */
  line(text: string): void;
  /**
   * The complete lines of one read, in order: the same as `line` of each, but
   * the connection parses them before it handles the first (faster; see
   * `parseOwned.fromLines`). Empty batches and blank lines are never
   * delivered. Optional, so that a sink of before it (one that wraps another
   * transport's, say) still works: the shipped transports then call `line`.
   */
  lines?(texts: readonly string[]): void;
  /** A framing problem (a line over `maxLineBytes`, a failed write); the transport goes on. */
  problem(message: string): void;
  /** The input ended (`error` when it failed). Called once. */
  end(error?: unknown): void;
}

/** A bidirectional line channel: `start` once with a sink, `send` lines, `close` both directions. */
export interface Transport {
  /** Starts reading; every line goes to `sink`. */
  start(sink: LineSink): void;
  /** Writes one line (the transport adds the newline); settles when the channel accepts more (back-pressure). */
  send(line: string): Promise<void>;
  /** Closes both directions; the sink's `end` follows. */
  close(): void;
}

/** Options of `ndJsonStream`. */
export interface NdJsonOptions {
  /** Longest accepted line in bytes (default 64 MiB); a longer line is dropped and reported, the stream goes on. */
  readonly maxLineBytes?: number;
}

/** A Web `ReadableStream` of bytes or text, as far as this module uses it. */
export interface WebReadable {
  getReader(): {
    read(): Promise<{ done: boolean; value?: Uint8Array | string | undefined }>;
    cancel(reason?: unknown): Promise<void>;
  };
}

/** A Web `WritableStream` of bytes, as far as this module uses it. */
export interface WebWritable {
  getWriter(): { write(chunk: Uint8Array): Promise<void>; close(): Promise<void> };
}

/** A Node readable stream (a child's stdout, `process.stdin`, a socket), as far as this module uses it. */
export interface NodeReadable {
  on(event: string, listener: (...args: any[]) => void): unknown;
  destroy(): unknown;
}

/** A Node writable stream (a child's stdin, `process.stdout`, a socket), as far as this module uses it. */
export interface NodeWritable {
  write(chunk: string, callback?: (error?: Error | null) => void): boolean;
  on(event: string, listener: (...args: any[]) => void): unknown;
  once(event: string, listener: (...args: any[]) => void): unknown;
  end(): unknown;
}

declare const TextDecoder: new (label?: string) => { decode(bytes: Uint8Array): string };
declare const TextEncoder: new () => { encode(text: string): Uint8Array };

const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;
const NEWLINE = 10;
const RETURN = 13;

/**
 * A transport of newline-delimited JSON (one JSON value per line, UTF-8) over
 * Web Streams or Node streams, e.g. `{ readable: child.stdout, writable: child.stdin }`.
 * Lines split across chunks (also inside a UTF-8 sequence) are joined, `\r\n`
 * is accepted, blank lines are ignored, a line over `maxLineBytes` is dropped
 * and reported while the stream goes on, and `send` waits when the writer
 * signals back-pressure (and rejects when the stream closes or fails, or the
 * transport is closed, before it drained).
 */
export function ndJsonStream(
  streams: { readonly readable: WebReadable | NodeReadable; readonly writable: WebWritable | NodeWritable },
  options: NdJsonOptions = {},
): Transport {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const { readable, writable } = streams;
  let report = (_message: string): void => {};
  const writer = "getWriter" in writable ? webWriter(writable) : nodeWriter(writable, (message) => report(message));
  let stopReading = (): void => {};
  return {
    start(given) {
      const sink = containedSink(given);
      report = (message) => sink.problem(message);
      const splitter = new LineSplitter(maxLineBytes, sink);
      stopReading = "getReader" in readable ? readWeb(readable, splitter, sink) : readNode(readable, splitter, sink);
    },
    send: (line) => writer.send(line),
    close() {
      writer.close();
      stopReading();
    },
  };
}

interface LineWriter {
  send(line: string): Promise<void>;
  close(): void;
}

function webWriter(writable: WebWritable): LineWriter {
  const writer = writable.getWriter();
  const encoder = new TextEncoder();
  return {
    send: (line) => writer.write(encoder.encode(line + "\n")),
    close: () => void writer.close().catch(() => {}),
  };
}

function nodeWriter(writable: NodeWritable, report: (message: string) => void): LineWriter {
  let drained: Promise<void> | undefined;
  // Rejects the senders waiting for 'drain' once none will come; a no-op while none wait.
  let stopWaiting = (_error: Error): void => {};
  // A Node stream without an 'error' listener would throw; a broken pipe is reported instead.
  writable.on("error", (error: unknown) => {
    report(`write failed: ${errorMessage(error)}`);
    stopWaiting(new Error("the stream failed before it drained"));
  });
  writable.on("close", () => stopWaiting(new Error("the stream closed before it drained")));
  return {
    send(line) {
      return new Promise<void>((resolve, reject) => {
        // The first of resolve/reject wins; a later write error also reaches the 'error' listener.
        const accepted = writable.write(line + "\n", (error) => error && reject(error));
        if (accepted) return resolve();
        // Back-pressure: settle once the stream drained, or fail once it cannot (closed, failed, or ended by `close`).
        drained ??= new Promise<void>((done, fail) => {
          writable.once("drain", () => ((drained = undefined), done()));
          stopWaiting = fail;
        });
        drained.then(resolve, reject);
      });
    },
    close() {
      stopWaiting(new Error("the transport closed before the stream drained"));
      writable.end();
    },
  };
}

function readWeb(readable: WebReadable, splitter: LineSplitter, sink: LineSink): () => void {
  const reader = readable.getReader();
  const pump = async (): Promise<void> => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (value !== undefined) splitter.push(value);
    }
  };
  pump().then(
    () => splitter.finish(),
    (error: unknown) => sink.end(error),
  );
  return () => void reader.cancel().catch(() => {});
}

function readNode(readable: NodeReadable, splitter: LineSplitter, sink: LineSink): () => void {
  let ended = false;
  const end = (error?: unknown): void => {
    if (ended) return;
    ended = true;
    if (error === undefined) splitter.finish();
    else sink.end(error);
  };
  readable.on("data", (chunk: Uint8Array | string) => splitter.push(chunk));
  readable.on("end", () => end());
  readable.on("close", () => end());
  readable.on("error", (error: unknown) => end(error));
  return () => void readable.destroy();
}

/** Cuts a byte stream into lines; decodes a line only once it is complete, so UTF-8 split across chunks is whole. */
class LineSplitter {
  private pieces: Uint8Array[] = [];
  private size = 0;
  private skipping = false;
  /** The complete lines of the read being split, delivered together once it is split. */
  private batch: string[] = [];
  private readonly decoder = new TextDecoder("utf-8");
  private readonly encoder = new TextEncoder();

  constructor(
    private readonly maxLineBytes: number,
    private readonly sink: LineSink,
  ) {}

  push(chunk: Uint8Array | string): void {
    const bytes = typeof chunk === "string" ? this.encoder.encode(chunk) : chunk;
    let start = 0;
    for (;;) {
      const newline = bytes.indexOf(NEWLINE, start);
      if (newline < 0) {
        if (start < bytes.length) this.keep(bytes.subarray(start));
        return this.deliver();
      }
      this.complete(bytes.subarray(start, newline));
      start = newline + 1;
    }
  }

  /** End of input: a last line without a newline still counts. */
  finish(): void {
    if (this.size > 0) this.complete(new Uint8Array(0));
    this.deliver();
    this.sink.end();
  }

  /** Hands the lines split so far to the sink, as one batch. */
  private deliver(): void {
    if (this.batch.length === 0) return;
    const lines = this.batch;
    this.batch = [];
    deliverLines(this.sink, lines);
  }

  private keep(part: Uint8Array): void {
    if (this.skipping) return;
    if (this.size + part.length > this.maxLineBytes) return this.tooLong();
    this.pieces.push(part);
    this.size += part.length;
  }

  private complete(last: Uint8Array): void {
    if (this.skipping) {
      this.skipping = false;
      return;
    }
    if (this.size + last.length > this.maxLineBytes) {
      this.tooLong();
      this.skipping = false;
      return;
    }
    const bytes = this.pieces.length === 0 ? last : joinBytes(this.pieces, last, this.size + last.length);
    this.pieces = [];
    this.size = 0;
    const end = bytes.length > 0 && bytes[bytes.length - 1] === RETURN ? bytes.length - 1 : bytes.length;
    const text = this.decoder.decode(bytes.subarray(0, end));
    if (!isBlank(text)) this.batch.push(text);
  }

  private tooLong(): void {
    this.pieces = [];
    this.size = 0;
    this.deliver(); // the lines before the dropped one come before its report
    this.skipping = true;
    this.sink.problem(`a line longer than maxLineBytes (${this.maxLineBytes} bytes) was dropped`);
  }
}

/**
 * `sink` with every callback contained: transports call the sink from stream
 * and socket event handlers, where a throw would end a Node process (an
 * uncaught exception) or the stream. A throw from `line` or `lines` is told
 * to `problem`, and one from `problem` or `end` is dropped (nobody is left to
 * tell); the transport goes on. The connection's own sink never throws; this
 * guards a custom one.
 */
export function containedSink(sink: LineSink): LineSink {
  const problem = (message: string): void => {
    try {
      sink.problem(message);
    } catch {
      // A sink whose problem() throws has nobody left to tell.
    }
  };
  const tell = (error: unknown): void => problem(`the sink failed on a line: ${errorMessage(error)}`);
  const contained: LineSink = {
    line(text) {
      try {
        sink.line(text);
      } catch (error) {
        tell(error);
      }
    },
    problem,
    end(error) {
      try {
        sink.end(error);
      } catch {
        // As for problem(): the input is over and nobody is left to tell.
      }
    },
  };
  if (sink.lines === undefined) return contained;
  return {
    ...contained,
    lines(texts) {
      try {
        sink.lines!(texts);
      } catch (error) {
        tell(error);
      }
    },
  };
}

/** Hands `texts` (not empty) to `sink`: as one batch when it takes batches, else line by line. */
export function deliverLines(sink: LineSink, texts: readonly string[]): void {
  if (sink.lines !== undefined) sink.lines(texts);
  else for (const text of texts) sink.line(text);
}

/** The bytes of `pieces` and then `last`, `total` bytes in all, in one array. */
export function joinBytes(pieces: readonly Uint8Array[], last: Uint8Array, total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  out.set(last, at);
  return out;
}

/** True when the line holds only JSON whitespace; stops at the first other character. */
function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return false;
  }
  return true;
}

/**
 * Two connected in-memory transports: a line sent on one arrives at the
 * other (asynchronously, in order); closing either ends both. For tests and
 * for running an agent and a client in one process.
 */
export function inMemoryTransports(): [Transport, Transport] {
  const a = new MemoryEnd();
  const b = new MemoryEnd();
  a.peer = b;
  b.peer = a;
  return [a, b];
}

class MemoryEnd implements Transport {
  peer: MemoryEnd | undefined;
  private sink: LineSink | undefined;
  private inbox: string[] = [];
  private scheduled = false;
  private ended = false;
  private endPending = false;

  start(sink: LineSink): void {
    this.sink = containedSink(sink);
    this.schedule();
  }

  send(line: string): Promise<void> {
    if (this.endPending || this.peer === undefined) return Promise.reject(new Error("transport closed"));
    this.peer.receive(line);
    return Promise.resolve();
  }

  close(): void {
    this.finish();
    this.peer?.finish();
  }

  private receive(line: string): void {
    if (this.endPending) return;
    this.inbox.push(line);
    this.schedule();
  }

  private finish(): void {
    this.endPending = true;
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.sink === undefined) return;
    this.scheduled = true;
    void Promise.resolve().then(() => this.deliver());
  }

  private deliver(): void {
    this.scheduled = false;
    const sink = this.sink;
    if (sink === undefined || this.ended) return;
    const lines = this.inbox.filter((line) => !isBlank(line));
    this.inbox = [];
    if (lines.length > 0) deliverLines(sink, lines);
    if (this.endPending && this.inbox.length === 0) {
      this.ended = true;
      sink.end();
    }
  }
}
