/**
 * Every method of every surface round-trips over an in-memory connection:
 * the handler registered under the method's name receives the params as
 * `parse` decodes them, and the caller receives the result as `parse`
 * decodes it. Requests and notifications for the agent end, the client end
 * and (v2 unstable) the proxy end. Params and results are small valid values
 * built from the schema (test/support/sample-value.ts), confirmed by `validate`.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SURFACES } from "../generator/surfaces.js";
import { sampleValue } from "./support/sample-value.js";
import { ENTRIES } from "./support/surfaces.js";

type Decoder = (value: unknown) => { ok: boolean; value?: unknown; issues?: unknown };
interface Row { method: string; side: string; kind: "request" | "notification"; params?: string; result?: string }
interface PeerLike {
  request(method: string, params: unknown): Promise<unknown>;
  notify(method: string, params: unknown): Promise<void>;
  close(): void;
}
type Connect = (transport: unknown, handlers: object, options?: object) => PeerLike;

/** The connect function that handles `side`, and the one that calls it. */
const ENDS: Record<string, { handler: string; caller: string }> = {
  agent: { handler: "connectAgent", caller: "connectClient" },
  client: { handler: "connectClient", caller: "connectAgent" },
  proxy: { handler: "connectProxy", caller: "connectProxy" },
};


function validSample(schema: { $defs: Record<string, Record<string, unknown>> }, validate: Record<string, Decoder>, name: string): unknown {
  const value = sampleValue(schema, name);
  const checked = validate[name]!(value);
  if (!checked.ok) throw new Error(`no valid sample for ${name}: ${JSON.stringify(checked.issues)}`);
  return value;
}

describe("method names", () => {
  // The connection reads a handler as `handlers[method]`, inherited ones too (a class instance's methods are on its
  // prototype): only the table's methods are looked up, so none may name what every object inherits.
  it.each(Object.entries(ENTRIES))("%s: no method of the tables is a member of Object.prototype", (_surface, entry) => {
    const rows: readonly Row[] = entry.methods;
    expect(rows.length).toBeGreaterThan(10);
    expect(rows.filter((row) => row.method in Object.prototype)).toEqual([]);
  });
});

describe.each(SURFACES.map((s) => [s.surface, s.file]))("%s: every method round-trips with its handler", (surface, file) => {
  const schema = JSON.parse(readFileSync(new URL(`../schema/${file}`, import.meta.url), "utf8"));

  it("has an end for every side it has methods for, and tests each method", async () => {
    const mod: Record<string, any> = ENTRIES[surface];
    const rows = (mod.methods as Row[]).filter((m) => m.side !== "protocol");
    expect(rows.length).toBeGreaterThan(10);
    let checked = 0;
    for (const row of rows) {
      const end = ENDS[row.side]!;
      const [near, far] = mod.inMemoryTransports();
      const seen: unknown[] = [];
      const params = validSample(schema, mod.validate, row.params!);
      const result = row.result === undefined ? undefined : validSample(schema, mod.validate, row.result);
      const handler = (received: unknown) => {
        seen.push(received);
        return result;
      };
      const errors: Error[] = [];
      (mod[end.handler] as Connect)(near, { [row.method]: handler }, { onError: (e: Error) => errors.push(e) });
      const caller = (mod[end.caller] as Connect)(far, {}, { onError: (e: Error) => errors.push(e) });
      if (row.kind === "request") {
        const answer = await caller.request(row.method, params);
        expect(answer, `${row.method} result`).toEqual(mod.parse[row.result!](result).value);
      } else {
        await caller.notify(row.method, params);
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      expect(seen, `${row.method} params`).toEqual([mod.parse[row.params!](params).value]);
      expect(errors).toEqual([]);
      caller.close();
      checked++;
    }
    expect(checked).toBe(rows.length);
  });
});
