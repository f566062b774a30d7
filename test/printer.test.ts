/** The printer of generator/code.ts: escaping by default, indentation by structure, imports by registration. */
import { describe, expect, it } from "vitest";
import { block, code, GeneratedFile, name, wrapped } from "../generator/code.js";

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
