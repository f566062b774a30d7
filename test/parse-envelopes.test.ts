/**
 * Issue 9.2: JSON-RPC envelopes lose no data. For every method of every
 * surface (the method table of generator/methods.ts), a full sample of its
 * params (or result) type, valid by ajv, is wrapped in the envelope of the
 * side that sends it:
 * - `parse.<Envelope>` decodes `params` with the method's own type: the same
 *   value `parse.<Params>` gives, i.e. the whole sample (before: `{}` or a
 *   wrong type's subset);
 * - params that do not fit the method's type fail at `/params/...` (the
 *   schema's extension branch would accept anything: `validate` keeps that
 *   verdict, equal to ajv's, and returns its input itself);
 * - a method outside the table keeps its params raw (extension), or fails
 *   where the envelope has no extension branch (proxy);
 * - responses: `parse.<X>Response` keeps `result` raw (it names no method),
 *   `parse.<X>ResponseFor(method, value)` decodes it with the method's type.
 */
import { describe, expect, it } from "vitest";
import type { Surface } from "../generator/ir.js";
import { methodTable, type MethodEntry } from "../generator/methods.js";
import { SURFACES } from "../generator/surfaces.js";
import { ajvValid } from "./support/ajv.js";
import { pinnedIR as recognise } from "./support/ir.js";
import { canonicalJson } from "./support/json.js";
import { sampleOf } from "./support/sample.js";
import { ENTRIES, parserOf, validatorOf } from "./support/surfaces.js";

/** Envelope -> the side that handles its messages and their kind (the sender is the other side). */
const ENVELOPES = {
  ClientRequest: ["agent", "request"],
  AgentRequest: ["client", "request"],
  ClientNotification: ["agent", "notification"],
  AgentNotification: ["client", "notification"],
  ProxyRequest: ["proxy", "request"],
  ProxyNotification: ["proxy", "notification"],
} as const;

/** Response envelope -> the side whose requests it answers. */
const RESPONSES = { AgentResponse: "agent", ClientResponse: "client", ProxyResponse: "proxy" } as const;

const irs = new Map<Surface, ReturnType<typeof recognise>>();

/** The IR of a surface, recognised once. */
function pinnedIR(surface: Surface): ReturnType<typeof recognise> {
  let ir = irs.get(surface);
  if (ir === undefined) irs.set(surface, (ir = recognise(surface)));
  return ir;
}

type Check = (value: unknown) => { ok: boolean; value?: unknown; issues?: { path: string; message: string }[] };

function askingParser(surface: Surface, envelope: string): (method: string, value: unknown) => ReturnType<Check> {
  const fn = (ENTRIES[surface].parse as unknown as Record<string, (m: string, v: unknown) => ReturnType<Check>>)[`${envelope}For`];
  if (!fn) throw new Error(`no parse.${envelope}For on ${surface}`);
  return fn;
}

/** A sample of `type`, checked valid by ajv. */
function validSample(surface: Surface, type: string): unknown {
  const sample = sampleOf(pinnedIR(surface), type);
  expect(ajvValid(surface, type, sample), `sample of ${type} is valid`).toBe(true);
  return sample;
}

function hasDef(surface: Surface, name: string): boolean {
  return pinnedIR(surface).defs.some((d) => d.name === name);
}

for (const { surface, file } of SURFACES) {
  const table = methodTable(pinnedIR(surface), file);

  describe(`${surface}: envelopes decode params by method`, () => {
    for (const [envelope, [side, kind]] of Object.entries(ENVELOPES)) {
      if (!hasDef(surface, envelope)) continue;
      const entries = table.filter((e) => e.side === side && e.kind === kind);
      it(`${envelope} has methods`, () => expect(entries.length).toBeGreaterThan(0));
      for (const entry of entries) {
        it(`${envelope} ${entry.method} (${entry.params})`, () => checkParams(surface, envelope, entry));
      }
      it(`${envelope}: a method outside the table`, () => {
        const message = { id: 1, method: "_vendor/do", params: JSON.parse('{"a":[1,{"__proto__":2}]}') };
        const parsed = parserOf(surface, envelope)(withoutId(message, kind));
        const extensible = hasDef(surface, kind === "request" ? "ExtRequest" : "ExtNotification") && !envelope.startsWith("Proxy");
        expect(parsed.ok).toBe(extensible);
        if (parsed.ok) expect(canonicalJson((parsed.value as { params: unknown }).params)).toBe(canonicalJson(message.params));
        else expect(parsed.issues?.[0]?.path).toBe("/params");
      });
    }
  });

  describe(`${surface}: responses`, () => {
    for (const [envelope, side] of Object.entries(RESPONSES)) {
      if (!hasDef(surface, envelope)) continue;
      const entries = table.filter((e) => e.side === side && e.kind === "request");
      for (const entry of entries) {
        it(`${envelope} ${entry.method} (${entry.result})`, () => checkResult(surface, envelope, entry));
      }
      it(`${envelope}: an error response, and a method outside the table`, () => {
        const error = { id: 3, error: { code: -32601, message: "no such method" } };
        expect(canonicalJson(parserOf(surface, envelope)(error).value)).toBe(canonicalJson(error));
        const raw = { id: 3, result: JSON.parse('{"any":{"__proto__":[1]}}') };
        const parsed = askingParser(surface, envelope)("_vendor/do", raw);
        expect(parsed.ok).toBe(!envelope.startsWith("Proxy"));
        if (parsed.ok) expect(canonicalJson(parsed.value)).toBe(canonicalJson(raw));
      });
    }
  });
}

function withoutId(message: { id: number; method: string; params: unknown }, kind: "request" | "notification"): object {
  return kind === "request" ? message : { method: message.method, params: message.params };
}

function checkParams(surface: Surface, envelope: string, entry: MethodEntry): void {
  const params = validSample(surface, entry.params!);
  const message = withoutId({ id: 7, method: entry.method, params }, entry.kind);
  const parsed = parserOf(surface, envelope)(message);
  expect(parsed.ok).toBe(true);
  const value = parsed.value as { params: unknown };
  expect(canonicalJson(value.params)).toBe(canonicalJson(parserOf(surface, entry.params!)(params).value));
  expect(canonicalJson(value)).toBe(canonicalJson(message)); // nothing lost: the sample is valid and has no unknown keys
  expect(validatorOf(surface, envelope)(message).value).toBe(message);

  // Params that do not fit the method's type: parse fails inside params; validate keeps ajv's verdict.
  const bad = withoutId({ id: 7, method: entry.method, params: { ...(params as object), sessionId: 5, protocolVersion: "x" } }, entry.kind);
  const reference = parserOf(surface, entry.params!)((bad as { params: unknown }).params);
  const badParsed = parserOf(surface, envelope)(bad);
  expect(badParsed.ok).toBe(reference.ok);
  if (!reference.ok) expect(badParsed.issues?.[0]?.path).toBe(`/params${reference.issues?.[0]?.path}`);
  const verdict = validatorOf(surface, envelope)(bad);
  expect(verdict.ok).toBe(ajvValid(surface, envelope, bad));
  if (verdict.ok) expect(verdict.value).toBe(bad);
}

function checkResult(surface: Surface, envelope: string, entry: MethodEntry): void {
  const result = validSample(surface, entry.result!);
  const response = { jsonrpc: "2.0", id: 9, result };
  const decoded = askingParser(surface, envelope)(entry.method, response);
  expect(decoded.ok).toBe(true);
  const value = decoded.value as { result: unknown };
  expect(canonicalJson(value.result)).toBe(canonicalJson(parserOf(surface, entry.result!)(result).value));
  expect(canonicalJson(value.result)).toBe(canonicalJson(result));

  // Without the method, the result is kept raw: a fresh copy of what arrived.
  const plain = parserOf(surface, envelope)(response);
  expect(plain.ok).toBe(true);
  expect(canonicalJson((plain.value as { result: unknown }).result)).toBe(canonicalJson(result));
  expect((plain.value as { result: unknown }).result).not.toBe(result);
  expect(validatorOf(surface, envelope)(response).value).toBe(response);

  // A result that does not fit the method's type fails (ProxySuccessorResponse is any JSON).
  const bad = askingParser(surface, envelope)(entry.method, { id: 9, result: 5 });
  expect(bad.ok).toBe(parserOf(surface, entry.result!)(5).ok);
  if (!bad.ok) expect(bad.issues?.[0]?.path).toBe("/result");
}
