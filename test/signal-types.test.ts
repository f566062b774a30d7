/**
 * A handler's signal (`HandlerContext.signal`, typed `AbortSignalOrLike`) and
 * the network transports' `fetch` / `WebSocket` options under the strict
 * consumer settings, in the three environments a consumer compiles in:
 * `@types/node` (the signal passes to `fetch` and `node:timers/promises`
 * without a cast; Node's `fetch` and the `ws` package's `WebSocket` fit), the
 * DOM library (the same with the browser's), and neither (`lib: ["ES2022"]`,
 * `types: []`: the package still compiles, the signal is `AbortSignalLike`).
 * The bare fixture is also checked to fail where it would pass with a global
 * `AbortSignal`, so that environment really has none.
 */
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { consumerOptions } from "./support/compile.js";

const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/signal-types/${name}`, import.meta.url));

/** The diagnostics of compiling `files` with the nodenext consumer options plus `extra`, as text. */
function diagnostics(files: readonly string[], extra: ts.CompilerOptions): string[] {
  const program = ts.createProgram(files, { ...consumerOptions("nodenext"), ...extra });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, "\n");
    if (!d.file || d.start === undefined) return message;
    const { line } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${d.file.fileName}:${line + 1} ${message}`;
  });
}

describe("a handler's signal and the transports' options, in each environment", () => {
  it("@types/node: ctx.signal goes to fetch and timers/promises without a cast; fetch and ws's WebSocket fit", () => {
    expect(diagnostics([fixture("node.ts")], { types: ["node"] })).toEqual([]);
  });

  it("the DOM library: ctx.signal goes to fetch without a cast; the browser's fetch and WebSocket fit", () => {
    expect(diagnostics([fixture("dom.ts")], { lib: ["lib.es2022.d.ts", "lib.dom.d.ts"], types: [] })).toEqual([]);
  });

  it("neither: the package compiles and ctx.signal is AbortSignalLike", () => {
    expect(diagnostics([fixture("bare.ts")], { lib: ["lib.es2022.d.ts"], types: [] })).toEqual([]);
  });

  it("neither has no AbortSignal: the DOM fixture fails there on exactly its AbortSignal and fetch uses", () => {
    const failing = diagnostics([fixture("dom.ts")], { lib: ["lib.es2022.d.ts"], types: [] });
    expect(failing.length).toBeGreaterThan(0);
    expect(failing.every((d) => d.includes("dom.ts") && /fetch|AbortSignal|WebSocket/.test(d))).toBe(true);
  });
});
