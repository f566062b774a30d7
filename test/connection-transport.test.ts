/**
 * `ndJsonStream` framing over Node and Web streams: lines split across
 * chunks (down to one byte, inside UTF-8 sequences), `\r\n`, blank lines, a
 * line over `maxLineBytes` (reported, the stream goes on), a 50 MB line,
 * back-pressure on write, and the end of input. The complete lines of one
 * read arrive as one batch (`LineSink.lines`), in order with the reports.
 */
import { PassThrough, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { connectAgent, connectClient, inMemoryTransports, ndJsonStream, type LineSink, type Transport, type UpdateSessionNotification } from "../generated/src/v2/index.js";

interface Collected {
  lines: string[];
  problems: string[];
  /** What reached the sink, in order: each batch of lines, each problem (as `problem: ...`), each single line (as `line: ...`). */
  events: (string[] | string)[];
  ended: Promise<void>;
}

function collect(transport: Transport): Collected {
  const lines: string[] = [];
  const problems: string[] = [];
  const events: (string[] | string)[] = [];
  let markEnded!: () => void;
  const ended = new Promise<void>((resolve) => (markEnded = resolve));
  const sink: LineSink = {
    line: (text) => void (lines.push(text), events.push(`line: ${text}`)),
    lines: (texts) => void (lines.push(...texts), events.push([...texts])),
    problem: (message) => void (problems.push(message), events.push(`problem: ${message}`)),
    end: () => markEnded(),
  };
  transport.start(sink);
  return { lines, problems, events, ended };
}

/** A Node transport reading `input` in the given chunks. */
function nodeReading(chunks: readonly (Uint8Array | string)[], maxLineBytes?: number): Collected {
  const readable = new PassThrough();
  const collected = collect(ndJsonStream({ readable, writable: new PassThrough() }, maxLineBytes === undefined ? {} : { maxLineBytes }));
  for (const chunk of chunks) readable.write(chunk);
  readable.end();
  return collected;
}

/** A Web transport reading `input` in the given chunks. */
function webReading(chunks: readonly Uint8Array[]): Collected {
  const readable = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  return collect(ndJsonStream({ readable, writable: new WritableStream<Uint8Array>() }));
}

const TEXT = '{"jsonrpc":"2.0","method":"x","params":{"text":"héllo wörld ✓ 😀"}}';

function oneByteChunks(text: string): Uint8Array[] {
  return [...new TextEncoder().encode(text)].map((byte) => Uint8Array.of(byte));
}

describe("ndJsonStream reading", () => {
  it.each([
    ["Node", nodeReading],
    ["Web", webReading],
  ] as const)("%s: joins a line split into 1-byte chunks, UTF-8 sequences included", async (_name, read) => {
    const collected = read(oneByteChunks(`${TEXT}\n${TEXT}\n`));
    await collected.ended;
    expect(collected.lines).toEqual([TEXT, TEXT]);
  });

  it("accepts \\r\\n, ignores blank lines, keeps a last line without newline", async () => {
    const collected = nodeReading([`${TEXT}\r\n\r\n   \n\t\r\n${TEXT}\n`, TEXT]);
    await collected.ended;
    expect(collected.lines).toEqual([TEXT, TEXT, TEXT]);
    expect(collected.problems).toEqual([]);
  });

  it.each([
    ["Node", nodeReading],
    ["Web", webReading],
  ] as const)("%s: hands the complete lines of each read to the sink as one batch", async (_name, read) => {
    const encode = (text: string) => new TextEncoder().encode(text);
    const collected = read([encode(`${TEXT}\n\n${TEXT}\n${TEXT.slice(0, 9)}`), encode(`${TEXT.slice(9)}\n`), encode(TEXT)]);
    await collected.ended;
    expect(collected.events).toEqual([[TEXT, TEXT], [TEXT], [TEXT]]);
  });

  it("inMemoryTransports hands the lines sent in one turn to the far end as one batch", async () => {
    const [near, far] = inMemoryTransports();
    const collected = collect(far);
    await Promise.all(["a", "b", "c"].map((line) => near.send(line)));
    await new Promise((resolve) => setTimeout(resolve, 0));
    await near.send("d");
    near.close();
    await collected.ended;
    expect(collected.events).toEqual([["a", "b", "c"], ["d"]]);
  });

  it("a sink without `lines` (written before it) gets every line through `line`, from both transports", async () => {
    const seen: string[] = [];
    let markEnded!: () => void;
    const ended = new Promise<void>((resolve) => (markEnded = resolve));
    const readable = new PassThrough();
    ndJsonStream({ readable, writable: new PassThrough() }).start({ line: (text) => void seen.push(text), problem() {}, end: () => markEnded() });
    readable.end(`${TEXT}\n${TEXT}\n`);
    await ended;
    const [near, far] = inMemoryTransports();
    let farEnded!: () => void;
    const closed = new Promise<void>((resolve) => (farEnded = resolve));
    far.start({ line: (text) => void seen.push(text), problem() {}, end: () => farEnded() });
    await Promise.all([near.send("x"), near.send("y")]);
    near.close();
    await closed;
    expect(seen).toEqual([TEXT, TEXT, "x", "y"]);
  });

  it("delivers the lines read before a line over maxLineBytes before its report", async () => {
    const long = `{"x":"${"a".repeat(200)}"}`;
    const collected = nodeReading([`${TEXT}\n${long}\n${TEXT}\n`], 100);
    await collected.ended;
    expect(collected.events).toEqual([[TEXT], "problem: a line longer than maxLineBytes (100 bytes) was dropped", [TEXT]]);
  });

  it("drops a line over maxLineBytes with a clear report and goes on with the next line", async () => {
    const long = `{"x":"${"a".repeat(200)}"}`;
    const collected = nodeReading([`${TEXT}\n${long.slice(0, 50)}`, long.slice(50), `\n${TEXT}\n${long}\n${TEXT}\n`], 100);
    await collected.ended;
    expect(collected.lines).toEqual([TEXT, TEXT, TEXT]);
    expect(collected.problems).toEqual([
      "a line longer than maxLineBytes (100 bytes) was dropped",
      "a line longer than maxLineBytes (100 bytes) was dropped",
    ]);
  });

  it("carries a 50 MB line with the default limit", async () => {
    const big = JSON.stringify({ jsonrpc: "2.0", method: "x", params: { data: "z".repeat(50 * 1024 * 1024) } });
    const bytes = new TextEncoder().encode(`${big}\n`);
    const chunks = Array.from({ length: Math.ceil(bytes.length / 65536) }, (_, i) => bytes.subarray(i * 65536, (i + 1) * 65536));
    const collected = nodeReading(chunks);
    await collected.ended;
    expect(collected.lines.length).toBe(1);
    expect(collected.lines[0]!.length).toBe(big.length);
    expect(collected.lines[0] === big).toBe(true);
  });
});

describe("ndJsonStream writing", () => {
  it("writes one line per message and waits for drain when the Node stream signals back-pressure", async () => {
    const written: string[] = [];
    let release!: () => void;
    const writable = new Writable({
      highWaterMark: 16,
      write(chunk: Buffer, _encoding, callback) {
        written.push(chunk.toString());
        release = () => callback();
      },
    });
    const transport = ndJsonStream({ readable: new PassThrough(), writable });
    collect(transport);
    let settled = false;
    const sent = transport.send('{"a":"0123456789012345678901234567890"}').then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(settled).toBe(false);
    release();
    await sent;
    expect(written).toEqual(['{"a":"0123456789012345678901234567890"}\n']);
  });

  it("a send waiting for drain rejects once none can come: after close(), or when the stream is destroyed", async () => {
    /** A Node transport whose peer never reads: every write waits for drain. */
    const stuck = () => {
      const writable = new Writable({ highWaterMark: 16, write() {} });
      const transport = ndJsonStream({ readable: new PassThrough(), writable });
      collect(transport);
      const line = JSON.stringify({ a: "x".repeat(40) });
      const outcomes = [transport.send(line), transport.send(line)].map((sent) => sent.then(() => "resolved", (error: Error) => error.message));
      return { writable, transport, outcomes: Promise.race([Promise.all(outcomes), new Promise((resolve) => setTimeout(() => resolve("still waiting"), 100))]) };
    };
    const closed = stuck();
    closed.transport.close();
    expect(await closed.outcomes).toEqual(Array(2).fill("the transport closed before the stream drained"));
    const destroyed = stuck();
    destroyed.writable.destroy();
    // Which comes first, the stream's 'close' or the error its destroy() gives the buffered write, is Node's to say.
    expect(await destroyed.outcomes).toEqual(Array(2).fill(expect.stringMatching(/before it drained|destroyed/)));
  });

  it("writes to a Web WritableStream and close() ends both directions", async () => {
    const chunks: string[] = [];
    const writable = new WritableStream<Uint8Array>({ write: (chunk) => void chunks.push(new TextDecoder().decode(chunk)) });
    const readable = new ReadableStream<Uint8Array>({ start() {} });
    const transport = ndJsonStream({ readable, writable });
    const collected = collect(transport);
    await transport.send("{}");
    await transport.send("[1]");
    transport.close();
    await collected.ended;
    expect(chunks.join("")).toBe("{}\n[1]\n");
  });

  it("reports a failed Node write instead of crashing", async () => {
    const writable = new Writable({ write: (_chunk, _encoding, callback) => callback(new Error("EPIPE")) });
    const transport = ndJsonStream({ readable: new PassThrough(), writable });
    const collected = collect(transport);
    await transport.send("{}").catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(collected.problems).toEqual(["write failed: EPIPE"]);
  });
});

describe("connections over ndJsonStream", () => {
  it("carries a 50 MB session/update from agent to client, parsed and handled", async () => {
    const toClient = new PassThrough();
    const toAgent = new PassThrough();
    const received: UpdateSessionNotification[] = [];
    const client = connectAgent(ndJsonStream({ readable: toAgent, writable: toClient }), {});
    const agent = connectClient(ndJsonStream({ readable: toClient, writable: toAgent }), { "session/update": (params) => void received.push(params) });
    const text = "y".repeat(50 * 1024 * 1024);
    await client.notify("session/update", { sessionId: "s", update: { sessionUpdate: "agent_message_chunk", messageId: "m", content: { type: "text", text } } });
    while (received.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const update = received[0]!.update;
    expect(update.sessionUpdate === "agent_message_chunk" && update.content.type === "text" && update.content.text === text).toBe(true);
    agent.close();
    await client.closed;
  });

  it("answers a request whose bytes arrive one at a time", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    connectAgent(ndJsonStream({ readable: input, writable: output }), { "session/new": (params) => ({ sessionId: `s:${params.cwd}` }) });
    const answer = new Promise<string>((resolve) => output.once("data", (chunk: Buffer) => resolve(chunk.toString())));
    for (const byte of oneByteChunks('{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/wörk ✓"}}\r\n')) input.write(byte);
    expect(JSON.parse(await answer)).toEqual({ jsonrpc: "2.0", id: 1, result: { sessionId: "s:/wörk ✓" } });
  });
});

describe("a sink that throws (issue 36: nothing escapes a stream's event handler)", () => {
  /** A sink whose every callback throws, recording what it was given. */
  function throwingSink(seen: string[]): LineSink {
    return {
      line: (text) => (seen.push(`line ${text}`), thrower()),
      lines: (texts) => (seen.push(`lines ${texts.join(",")}`), thrower()),
      problem: (message) => (seen.push(`problem ${message}`), thrower()),
      end: () => (seen.push("end"), thrower()),
    };
  }
  function thrower(): never {
    throw new Error("sink failed");
  }

  it.each(["node", "web", "memory"] as const)("over %s streams: the throw is told to problem(), and the next lines still arrive", async (kind) => {
    const seen: string[] = [];
    let feed: (text: string) => void;
    let finish: () => void;
    if (kind === "node") {
      const input = new PassThrough();
      ndJsonStream({ readable: input, writable: new PassThrough() }).start(throwingSink(seen));
      feed = (text) => input.write(text);
      finish = () => input.end();
    } else if (kind === "web") {
      let controller!: ReadableStreamDefaultController<Uint8Array>;
      const readable = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
      ndJsonStream({ readable, writable: new WritableStream() }).start(throwingSink(seen));
      feed = (text) => controller.enqueue(new TextEncoder().encode(text));
      finish = () => controller.close();
    } else {
      const [near, far] = inMemoryTransports();
      near.start(throwingSink(seen));
      feed = (text) => void far.send(text.trimEnd());
      finish = () => far.close();
    }
    /** Waits (polling, no time limit but the test's) until `seen` holds `count` events. */
    const until = async (count: number) => {
      while (seen.length < count) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    feed("first\n");
    await until(2);
    feed("second\n");
    await until(4);
    finish();
    await until(5);
    expect(seen).toEqual(["lines first", "problem the sink failed on a line: sink failed", "lines second", "problem the sink failed on a line: sink failed", "end"]);
  });
});
