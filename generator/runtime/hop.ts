/**
 * One JSON-RPC hop of a proxy chain, below the typed connection: messages are
 * relayed as they are (unknown methods, `_meta`, results and errors unchanged),
 * with this hop's own request ids and its own `$/cancel_request`s. The
 * conductor (chain.ts) holds one per component, a forwarding proxy (proxy.ts)
 * one towards its conductor. Nothing here throws at its caller or out of a
 * transport callback: a bad line is answered (-32700, -32600) or reported.
 */
import { eachParsed, NotJson, parseText } from "./decode.js";
import { errorMessage } from "./describe.js";
import type { RequestId } from "./connection.js";
import type { Transport } from "./transport.js";

/** A request's outcome as the wire carries it: its `result`, or its `error` object, never decoded. */
export type Answer = { readonly result: unknown } | { readonly error: unknown };

/** A request sent on a hop: its answer (never rejects), and how to cancel it (`$/cancel_request` with this hop's id). */
export interface Sent {
  readonly answer: Promise<Answer>;
  cancel(): void;
}

/** What a hop hands on. `params` is `undefined` when the message had none (or `null`). */
export interface HopHandler {
  /** An incoming request: the answer to write back; `Sent.cancel` runs on the peer's `$/cancel_request` for it. */
  request(method: string, params: unknown): Sent;
  notification(method: string, params: unknown): void;
  /** The input ended (or the hop was closed). */
  end(): void;
}

export const CANCEL_REQUEST = "$/cancel_request";
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INTERNAL_ERROR = -32603;

/** The -32603 answer of a request that could not be sent or whose hop closed first. */
export function internalError(message: string): Answer {
  return { error: { code: INTERNAL_ERROR, message } };
}

interface Outgoing {
  readonly resolve: (answer: Answer) => void;
}

/** A JSON-RPC endpoint on a transport that relays without decoding params or results. */
export class Hop {
  private nextId = 0;
  private closed = false;
  private readonly pending = new Map<number, Outgoing>();
  /** The peer's requests being answered, by their id, to cancel on its `$/cancel_request`. */
  private readonly inflight = new Map<RequestId, Sent>();

  constructor(
    private readonly transport: Transport,
    private readonly report: (error: Error) => void,
  ) {}

  /** Starts reading; every message goes to `handler`. */
  start(handler: HopHandler): void {
    try {
      this.transport.start({
        line: (text) => this.contained(() => this.receive(parseText(text), handler)),
        lines: (texts) => this.contained(() => eachParsed(texts, (value) => (this.contained(() => this.receive(value, handler)), !this.closed))),
        problem: (message) => this.report(new Error(message)),
        end: (error) => {
          if (error !== undefined) this.report(error instanceof Error ? error : new Error(errorMessage(error)));
          this.close();
          this.contained(() => handler.end());
        },
      });
    } catch (error) {
      this.report(new Error(`could not start a transport: ${errorMessage(error)}`));
      this.close();
      this.contained(() => handler.end());
    }
  }

  /** Sends a request with this hop's next id; `params` undefined sends none. */
  request(method: string, params: unknown): Sent {
    if (this.closed) return { answer: Promise.resolve(internalError("connection closed")), cancel: () => {} };
    const id = ++this.nextId;
    const answer = new Promise<Answer>((resolve) => this.pending.set(id, { resolve }));
    this.write({ jsonrpc: "2.0", id, method, params }).catch((error: unknown) => this.settle(id, internalError(`could not send ${method}: ${errorMessage(error)}`)));
    return { answer, cancel: () => void this.notify(CANCEL_REQUEST, { requestId: id }) };
  }

  /** Sends a notification; a failed write is reported. */
  notify(method: string, params: unknown): Promise<void> {
    return this.write({ jsonrpc: "2.0", method, params }).catch((error: unknown) => this.report(new Error(`could not send ${method}: ${errorMessage(error)}`)));
  }

  /** Closes the transport; pending requests are answered -32603, the peer's requests in flight cancelled. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.contained(() => this.transport.close());
    for (const [id] of this.pending) this.settle(id, internalError("connection closed"));
    for (const sent of this.inflight.values()) this.contained(() => sent.cancel());
    this.inflight.clear();
  }

  private receive(message: unknown, handler: HopHandler): void {
    if (message instanceof NotJson) return void this.answer(null, { error: { code: PARSE_ERROR, message: "Parse error" } });
    if (!isObject(message) || message.jsonrpc !== "2.0") return this.invalid(message);
    const method = message.method;
    const params = message.params === null ? undefined : message.params;
    if (typeof method === "string" && "id" in message) return this.incomingRequest(message.id, method, params, handler);
    if (typeof method === "string") return this.incomingNotification(method, params, handler);
    if ("result" in message || "error" in message) return this.response(message);
    this.invalid(message);
  }

  private incomingRequest(id: unknown, method: string, params: unknown, handler: HopHandler): void {
    if (!isRequestId(id)) return void this.answer(null, { error: { code: INVALID_REQUEST, message: "Invalid Request: bad id" } });
    const sent = handler.request(method, params);
    this.inflight.set(id, sent);
    void sent.answer.then((answer) => {
      if (this.inflight.get(id) === sent) this.inflight.delete(id);
      return this.answer(id, answer);
    });
  }

  private incomingNotification(method: string, params: unknown, handler: HopHandler): void {
    if (method !== CANCEL_REQUEST) return handler.notification(method, params);
    // Hop-local: the peer cancels a request it sent on this hop; whoever answers it passes the cancellation on.
    const id = isObject(params) ? params.requestId : undefined;
    if (isRequestId(id)) this.inflight.get(id)?.cancel();
  }

  private response(message: Readonly<Record<string, unknown>>): void {
    const id = message.id;
    if (typeof id !== "number" || !this.pending.has(id)) return this.report(new Error(`a response to no request of this hop (id ${JSON.stringify(id)})`));
    this.settle(id, "error" in message ? { error: message.error } : { result: message.result });
  }

  private settle(id: number, answer: Answer): void {
    const outgoing = this.pending.get(id);
    if (outgoing === undefined) return;
    this.pending.delete(id);
    outgoing.resolve(answer);
  }

  private invalid(message: unknown): void {
    const id = isObject(message) && isRequestId(message.id) ? message.id : null;
    if (isObject(message) && "method" in message && "id" in message) return void this.answer(id, { error: { code: INVALID_REQUEST, message: "Invalid Request" } });
    this.report(new Error("a line that is not a JSON-RPC 2.0 message"));
  }

  /** Writes a response; after close it is dropped. */
  private answer(id: RequestId, answer: Answer): Promise<void> {
    if (this.closed) return Promise.resolve();
    return this.write({ jsonrpc: "2.0", id, ...answer }).catch((error: unknown) => this.report(new Error(`could not answer request ${JSON.stringify(id)}: ${errorMessage(error)}`)));
  }

  /** Serialises and hands one message to the transport; rejects (never throws). */
  private write(message: object): Promise<void> {
    if (this.closed) return Promise.reject(new Error("connection closed"));
    try {
      return Promise.resolve(this.transport.send(JSON.stringify(message)));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private contained(run: () => void): void {
    try {
      run();
    } catch (error) {
      this.report(error instanceof Error ? error : new Error(errorMessage(error)));
    }
  }
}

/** A plain object (not an array), as JSON.parse makes them. */
export function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isRequestId(value: unknown): value is RequestId {
  return value === null || typeof value === "string" || typeof value === "number";
}
