/**
 * The connection's bundle keeps no all-issues collectors (issue 10's bundle
 * miss): `connectAgent`/`connectClient` check outgoing messages with the
 * first-issue validators of `validate-first.ts`, so a bundler drops
 * `validate.ts` (the collectors behind `validate.X(value, { all: true })`)
 * and the runtime that only they use. Inbound values are decoded with
 * `parseOwned` (issue 11), whose checks fall back to `parse`, so both are in.
 * Bundled with esbuild as bench/connection.bench.ts does, on every surface.
 * The network clients (httpTransport, webSocketTransport) bundle with no Node
 * built-in, and only into a bundle that uses them.
 */
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { ENTRIES } from "./support/surfaces.js";

const ROOT = new URL("..", import.meta.url).pathname;

/** The source files esbuild puts into a bundle of `contents` (bytes > 0), relative to the project. */
async function bundledFiles(contents: string): Promise<string[]> {
  const result = await build({
    stdin: { contents, resolveDir: ROOT, sourcefile: "entry.ts", loader: "ts" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "neutral",
    write: false,
    metafile: true,
    logLevel: "error",
  });
  const output = Object.values(result.metafile.outputs)[0]!;
  return Object.entries(output.inputs)
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([file]) => file);
}

describe("the connection's bundle", () => {
  for (const surface of Object.keys(ENTRIES)) {
    it(`${surface}: a connecting agent and client bundle the first-issue validators, parseOwned and parse, and no collectors`, async () => {
      const files = await bundledFiles(
        `import { connectAgent, connectClient, inMemoryTransports } from "./generated/src/${surface}/index.js";\n` +
          `const [a, b] = inMemoryTransports();\nexport const peers = [connectAgent(a, {}), connectClient(b, {})];\n`,
      );
      expect(files).toContain(`generated/src/${surface}/validate-first.ts`);
      expect(files).toContain(`generated/src/${surface}/parse.ts`);
      expect(files).toContain(`generated/src/${surface}/parse-owned.ts`);
      expect(files).not.toContain(`generated/src/${surface}/validate.ts`);
      expect(files).not.toContain("generated/src/runtime/collect.ts");
    });
  }

  it("a consumer of validate.X(value, { all: true }) still gets the collectors", async () => {
    const files = await bundledFiles(`import { validate } from "./generated/src/v2/index.js";\nexport const r = validate.SessionUpdate({}, { all: true });\n`);
    expect(files).toEqual(expect.arrayContaining(["generated/src/v2/validate.ts", "generated/src/v2/validate-first.ts", "generated/src/runtime/collect.ts"]));
  });

  it("the network clients bundle for the browser with no Node built-in, and a connection that uses neither leaves them out", async () => {
    const networked = await bundledFiles(
      `import { connectClient, httpTransport, webSocketTransport } from "./generated/src/v2/index.js";\n` +
        `export const peers = [connectClient(httpTransport("/acp"), {}), connectClient(webSocketTransport("/acp"), {})];\n`,
    );
    expect(networked).toEqual(expect.arrayContaining(["generated/src/runtime/http-client.ts", "generated/src/runtime/websocket-client.ts", "generated/src/runtime/client-wire.ts"]));
    expect(networked.filter((file) => file !== "entry.ts" && !file.startsWith("generated/"))).toEqual([]);
    const local = await bundledFiles(`import { connectClient, inMemoryTransports } from "./generated/src/v2/index.js";\nexport const peer = connectClient(inMemoryTransports()[0], {});\n`);
    expect(local.filter((file) => /(http|websocket)-client|client-wire/.test(file))).toEqual([]);
  });
});
