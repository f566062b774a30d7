/**
 * README "Remote agents": the code it shows is the code the tests run. The
 * server and browser blocks are excerpts of examples/remote-server.ts and
 * examples/browser-client.ts, line for line (test/load-balancer.test.ts and
 * test/browser.test.ts run those files); the reconnect sketch uses only names
 * the v2 entry exports.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as v2 from "../generated/src/v2/index.js";
import { readmeBlocks } from "./docs-readme.js";

const example = (name: string) => readFileSync(new URL(`../examples/${name}`, import.meta.url), "utf8");

describe("README, Remote agents", () => {
  const blocks = readmeBlocks("Remote agents", "ts");

  it("shows examples/remote-server.ts's server as it is", () => {
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    expect(example("remote-server.ts")).toContain(blocks[0]!.trimEnd());
  });

  it("shows examples/browser-client.ts's connection and turn as they are", () => {
    const source = example("browser-client.ts");
    for (const block of blocks.slice(1, 3)) expect(source).toContain(block.trimEnd());
  });

  it("reconnects with names the v2 entry exports", () => {
    const sketch = readmeBlocks("More than one machine", "ts", 3)[0]!;
    for (const name of ["createCookieJar", "connectClient", "httpTransport", "PROTOCOL_VERSION"]) {
      expect(sketch).toContain(name);
      expect(v2).toHaveProperty(name);
    }
    expect(v2.methods.some((m) => m.method === "session/resume")).toBe(true);
  });
});
