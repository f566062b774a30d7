/**
 * The connection's types under the strict consumer settings (strict,
 * exactOptionalPropertyTypes, noUncheckedIndexedAccess, module nodenext; the
 * package test covers bundler resolution of the same entry points). The fixture's `@ts-expect-error` lines are removed before
 * compiling: exactly those lines must fail (so each case fails to compile and
 * each compiling twin compiles), and the example programs compile
 * without a cast. One program keeps it to one compilation.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { consumerOptions, PACKAGE_PATHS } from "./support/compile.js";

const path = (relative: string): string => fileURLToPath(new URL(relative, import.meta.url));
const FIXTURE = path("./fixtures/connection-types/consumer.ts");
const EXAMPLES = ["v1-agent", "v1-client", "v2-agent", "v2-client", "browser-client", "remote-server"].map((name) => path(`../examples/${name}.ts`));
const MARK = "// @ts-expect-error";

describe("module nodenext", () => {
  const mode = "nodenext";
  it("fails exactly on each @ts-expect-error case (twins compile); the examples compile", () => {
    const lines = readFileSync(FIXTURE, "utf8").split("\n");
    const expected = lines.flatMap((line, i) => (line.includes(MARK) ? [i + 2] : []));
    expect(expected.length).toBe(11);
    const stripped = lines.map((line) => (line.includes(MARK) ? "" : line)).join("\n");
    const options = { ...consumerOptions(mode), types: ["node"], paths: PACKAGE_PATHS };
    const host = ts.createCompilerHost(options);
    const read = host.readFile;
    host.readFile = (file) => (file === FIXTURE ? stripped : read(file));
    const program = ts.createProgram([FIXTURE, ...EXAMPLES], options, host);
    const diagnostics = ts.getPreEmitDiagnostics(program);
    const elsewhere = diagnostics.filter((d) => d.file?.fileName !== FIXTURE).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    expect(elsewhere).toEqual([]);
    const failing = diagnostics.map((d) => d.file!.getLineAndCharacterOfPosition(d.start!).line + 1);
    expect([...new Set(failing)].sort((a, b) => a - b)).toEqual(expected);
  });
});

describe("the examples", () => {
  it.each(EXAMPLES)("%s has no cast", (file) => {
    expect(readFileSync(file, "utf8")).not.toMatch(/\bas\s+(unknown|any|never|[A-Z]\w*)\b/);
  });
});
