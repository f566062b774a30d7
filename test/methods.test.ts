/**
 * Method tables (S32): entries checked by hand against the schema's
 * `x-method` / `x-side` annotations.
 */
import { describe, expect, it } from "vitest";
import { ENTRIES } from "./support/surfaces.js";

describe("methods (S32)", () => {
  it("v2/unstable: session/update is a client-handled notification with UpdateSessionNotification params", () => {
    expect(ENTRIES["v2/unstable"].methods).toContainEqual({ method: "session/update", side: "client", kind: "notification", params: "UpdateSessionNotification" });
  });

  it("v1: session/update takes SessionNotification params; session/prompt is an agent request", () => {
    expect(ENTRIES.v1.methods).toContainEqual({ method: "session/update", side: "client", kind: "notification", params: "SessionNotification" });
    expect(ENTRIES.v1.methods).toContainEqual({ method: "session/prompt", side: "agent", kind: "request", params: "PromptRequest", result: "PromptResponse" });
  });

  it("v2/unstable: mcp/message is a client request and an agent notification at once", () => {
    const mcp = ENTRIES["v2/unstable"].methods.filter((m) => m.method === "mcp/message");
    expect(mcp).toEqual([
      { method: "mcp/message", side: "agent", kind: "notification", params: "MessageMcpNotification" },
      { method: "mcp/message", side: "client", kind: "request", params: "MessageMcpRequest", result: "MessageMcpResponse" },
    ]);
  });

  it("$/cancel_request is handled on the protocol level; proxy methods on the proxy side", () => {
    expect(ENTRIES.v2.methods).toContainEqual({ method: "$/cancel_request", side: "protocol", kind: "notification", params: "CancelRequestNotification" });
    expect(ENTRIES["v2/unstable"].methods).toContainEqual({ method: "proxy/successor", side: "proxy", kind: "request", params: "ProxySuccessorRequest", result: "ProxySuccessorResponse" });
  });

  it("every params and result name has parse and validate functions", () => {
    for (const entry of Object.values(ENTRIES)) {
      for (const m of entry.methods) {
        for (const name of [m.params, "result" in m ? m.result : undefined]) {
          if (name === undefined) continue;
          expect(typeof (entry.parse as Record<string, unknown>)[name]).toBe("function");
          expect(typeof (entry.validate as Record<string, unknown>)[name]).toBe("function");
        }
      }
    }
  });
});
