/**
 * The connection's bundle keeps no all-issues collectors (issue 10's bundle
 * miss): `connectAgent`/`connectClient` check outgoing messages with the
 * first-issue validators of `validate-first.ts`, so a bundler drops
 * `validate.ts` (the collectors behind `validate.X(value, { all: true })`)
 * and the runtime that only they use. Inbound values are decoded with
 * `parseOwned` (issue 11), whose checks fall back to `parse`, so both are in.
 * Bundled with esbuild as bench/connection.bench.ts does, on every surface.
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
});
