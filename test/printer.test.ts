/** The printer of generator/code.ts: escaping by default, indentation by structure, imports by registration. */
import { describe, expect, it } from "vitest";
import { FunctionPool } from "../generator/emit/checks.js";
import { block, chain, clause, code, GeneratedFile, name, own, ownSet, wrapped } from "../generator/code.js";

describe("code", () => {
  it("escapes every interpolated value that is not code", () => {
    const hostile = 'x"; process.exit(1); "';
    expect(code`const a = ${hostile};`.text).toBe(`const a = ${JSON.stringify(hostile)};`);
    expect(code`f(${1}, ${true}, ${null}, ${10n})`.text).toBe("f(1, true, null, 10)");
    expect(code`${name("Foo")}.${code`bar`}`.text).toBe("Foo.bar");
    expect(() => name("not an identifier")).toThrow();
    expect(() => code`${Number.NaN}`).toThrow();
  });
});

describe("block and wrapped", () => {
  it("indent nested bodies and keep `} else {` on one line", () => {
    const inner = block(code`if (b)`, [code`g();`]);
    const text = block(code`if (a)`, [inner, code`h();`], code` else {`).text;
    expect(text).toBe("if (a) {\n  if (b) {\n    g();\n  }\n  h();\n} else {");
    expect(block(code`interface Empty`, []).text).toBe("interface Empty {}");
    expect(wrapped(code`[`, [code`1,`, code`2,`], code`]`).text).toBe("[\n  1,\n  2,\n]");
  });
});

describe("GeneratedFile", () => {
  it("writes one import line per module, sorted, type-only when every use is", () => {
    const f = new GeneratedFile();
    const rt = f.importAll("../runtime/x.js", "rt");
    const a = f.import("./b.js", "A", { type: true });
    f.import("./b.js", "make");
    f.import("./a.js", "T", { type: true });
    f.print(code`export const v: ${a} = make(${rt}.id);`);
    expect(f.toString()).toBe(
      'import * as rt from "../runtime/x.js";\n' +
        'import type { T } from "./a.js";\n' +
        'import { type A, make } from "./b.js";\n' +
        "\n" +
        "export const v: A = make(rt.id);\n",
    );
  });
});

describe("chain and clause", () => {
  it("continue blocks on their closing lines and indent a clause's body under its label", () => {
    const text = chain([
      [code`try`, [code`f();`]],
      [code`finally`, [code`g();`]],
    ]).text;
    expect(text).toBe("try {\n  f();\n} finally {\n  g();\n}");
    expect(block(code`switch (t)`, [clause(code`case ${"a"}:`, [code`return 1;`])]).text).toBe('switch (t) {\n  case "a":\n    return 1;\n}');
  });

  it("read and write wire keys as plain data (S34)", () => {
    const v = name("v");
    expect(own(v, "__proto__").text).toBe('rt.own(v, "__proto__")');
    expect(ownSet(v, "__proto__", code`1`).text).toBe('rt.put(v, "__proto__", 1)');
    expect(ownSet(v, "a-b", code`1`).text).toBe('v["a-b"] = 1');
  });

  it("prints a file header above the import lines", () => {
    const f = new GeneratedFile(code`/** head */\n`);
    f.import("./a.js", "A", { type: true });
    f.print(code`export type B = A;`);
    expect(f.toString()).toBe('/** head */\n\nimport type { A } from "./a.js";\n\nexport type B = A;\n');
  });
});

/** Hoisted helpers are named after what they check: deterministic, unique, shared when identical. */
describe("FunctionPool", () => {
  it("names a helper after the path where it was first needed, with a suffix on collision", () => {
    const pool = new FunctionPool();
    pool.reserve(["p_ToolCallUpdate"]);
    const content = pool.rooted("ToolCallUpdate", () => pool.within("content", () => pool.intern("p_", code`(v: any): any {}`)));
    const again = pool.rooted("Other", () => pool.intern("p_", code`(v: any): any {}`));
    const top = pool.rooted("ToolCallUpdate", () => pool.intern("p_", code`(v: any): number {}`));
    const odd = pool.within("a-b", () => pool.intern("k_", code`(v: any): number {}`));
    expect([content.text, again.text, top.text, odd.text]).toEqual(["p_ToolCallUpdate_content", "p_ToolCallUpdate_content", "p_ToolCallUpdate_2", "k_a_b"]);
    expect(pool.all().map((c) => c.text)).toEqual([
      "function p_ToolCallUpdate_content(v: any): any {}",
      "function p_ToolCallUpdate_2(v: any): number {}",
      "function k_a_b(v: any): number {}",
    ]);
  });

  it("refuses two different declarations under one fixed name", () => {
    const pool = new FunctionPool();
    pool.define("p_A", code`function p_A() {}`);
    expect(pool.define("p_A", code`function p_A() {}`).text).toBe("p_A");
    expect(() => pool.define("p_A", code`function p_A() { return 1; }`)).toThrow(/two different helpers/);
    const hoisted = pool.rooted("B", () => pool.intern("p_", code`(v: any): any {}`));
    expect(() => pool.define(hoisted.text, code`function p_B() {}`)).toThrow(/two different helpers/);
  });
});
