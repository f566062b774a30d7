/**
 * README "Serving v1 and v2" cannot drift: its TypeScript blocks are lines of
 * the example programs the tests run (indentation aside, in order), and each command of
 * its `sh` blocks is one the tests run exactly as written.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readmeBlocks, readmeShellCommands } from "./docs-readme.js";
import { NEGOTIATE_COMMANDS } from "./support/negotiate-readme.js";

const SECTION = "Serving v1 and v2";
const EXAMPLES = ["examples/versions-agent.ts", "examples/versions-client.ts"].map((file) => readFileSync(new URL(`../${file}`, import.meta.url), "utf8"));

/** Whether the lines of `block` (indentation aside, `// ...` elisions dropped) are lines of `program`, in order. */
function linesInOrder(block: string, program: string): boolean {
  const lines = program.split("\n").map((line) => line.trim());
  let at = 0;
  for (const line of block.split("\n").map((l) => l.trim())) {
    if (line === "" || line === "// ...") continue;
    at = lines.indexOf(line, at) + 1;
    if (at === 0) return false;
  }
  return true;
}

describe(`README: ${SECTION}`, () => {
  it("shows an agent and a client, each block as its example program has it", () => {
    const blocks = readmeBlocks(SECTION, "ts");
    expect(blocks.length).toBe(2);
    blocks.forEach((block, i) => expect(linesInOrder(block, EXAMPLES[i]!), block).toBe(true));
    expect(linesInOrder("const agent = await negotiate();\nnot a line of it", EXAMPLES[1]!)).toBe(false);
  });

  it("documents only commands the tests run exactly as written", () => {
    // The commands of its "Proxies in a chain" subsection (the stdio chain, the chain bench) are test/proxy-chain.test.ts's
    // (test/support/readme-commands.ts).
    const commands = readmeShellCommands(SECTION).filter((command) => !command.includes("examples/chain.ts") && !command.includes("bench/chain.bench.ts"));
    expect(commands.length).toBe(7);
    for (const command of commands) expect(Object.values(NEGOTIATE_COMMANDS)).toContain(command);
  });
});
