/**
 * The IR graph walkers of generator/ir.ts that the check, the diff and the
 * package README share, on small hand-made IRs.
 */
import { describe, expect, it } from "vitest";
import { defsByName, findRefCycle, nodesWithin, reachableDefs, refsWithin, type Def, type Node } from "../generator/ir.js";

const NO_DOC = { experimental: false };
const ref = (name: string): Node => ({ kind: "ref", name });
const field = (name: string, node: Node) => ({ name, doc: NO_DOC, node, required: true, tolerance: { defaultOnError: false, skipInvalidItems: false, defaultOnNull: false } });
const object = (...fields: [string, Node][]): Node => ({ kind: "object", fields: fields.map(([n, node]) => field(n, node)), keepsUnknown: false });
const def = (name: string, node: Node): Def => ({ name, doc: NO_DOC, pointer: `/$defs/${name}`, node, docsIgnore: false });

/** Only the nullable and union edges: what `checkIR` follows when it looks for alias cycles. */
const aliasEdges = (node: Node): Node[] => (node.kind === "nullable" ? [node.inner] : node.kind === "union" ? node.options.map((o) => o.node) : []);

describe("IR walkers", () => {
  const list: Node = { kind: "array", items: { kind: "nullable", inner: ref("Item") } };
  const holder = object(["items", list], ["owner", ref("Owner")]);

  it("nodesWithin lists a node and everything inside it, parents first, without following refs", () => {
    expect(nodesWithin(holder).map((n) => n.kind)).toEqual(["object", "array", "nullable", "ref", "ref"]);
    expect(nodesWithin(holder, aliasEdges)).toEqual([holder]);
  });

  it("refsWithin names the refs in order of appearance, through the children it is given", () => {
    expect(refsWithin(holder)).toEqual(["Item", "Owner"]);
    expect(refsWithin({ kind: "nullable", inner: ref("A") }, aliasEdges)).toEqual(["A"]);
    expect(refsWithin(holder, aliasEdges)).toEqual([]);
  });

  it("reachableDefs follows refs from def to def, through cycles, skipping unknown names", () => {
    const defs = [def("Holder", holder), def("Item", object(["next", ref("Holder")])), def("Owner", ref("Missing")), def("Alone", object())];
    const reached = reachableDefs(defs[0]!, defsByName(defs)).map((d) => d.name);
    expect(reached.sort()).toEqual(["Holder", "Item", "Owner"]);
    expect(reachableDefs(defs[3]!, defsByName(defs)).map((d) => d.name)).toEqual(["Alone"]);
  });

  it("findRefCycle returns the first cycle as the path that closes it, only over the edges it is given", () => {
    const aliases = [def("Start", ref("LoopA")), def("LoopA", { kind: "nullable", inner: ref("LoopB") }), def("LoopB", ref("LoopA"))];
    expect(findRefCycle(aliases, aliasEdges)).toEqual(["LoopA", "LoopB", "LoopA"]);
    const recursive = [def("Tree", object(["children", { kind: "array", items: ref("Tree") }]))];
    expect(findRefCycle(recursive)).toEqual(["Tree", "Tree"]);
    expect(findRefCycle(recursive, aliasEdges)).toBeUndefined();
  });
});
