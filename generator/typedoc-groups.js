/**
 * A typedoc plugin for `npm run docs` (generator/typedoc.json): on each surface's
 * page, members are grouped by what they are in acp-bindings (Types, validate,
 * parse, build, apply, Session, Methods, Connection), from the generated module that
 * declares them, instead of by TypeScript kind. Plain JavaScript: typedoc
 * imports its plugins as they are.
 */
import { basename } from "node:path";
import { Comment, CommentTag, Converter, ReflectionKind } from "typedoc";

/** The group of a member declared in a generated module, by the module's file name. */
const GROUP_OF_MODULE = {
  "types.ts": "Types",
  "result.ts": "Types",
  "session.ts": "Session",
  "patch.ts": "Session",
  "subagent.ts": "Session",
  "methods.ts": "Methods",
  "connection.ts": "Connection",
  "transport.ts": "Connection",
  "http-client.ts": "Connection",
  "websocket-client.ts": "Connection",
  "client-wire.ts": "Connection",
  "session-store.ts": "Connection",
  "http-server.ts": "Connection",
  "http-node.ts": "Connection",
  "http-connection.ts": "Connection",
  "http-websocket.ts": "Connection",
  "chain.ts": "Connection",
  "proxy.ts": "Connection",
  "hop.ts": "Connection",
};

/** @param {import("typedoc").Application} app */
export function load(app) {
  /** @type {Map<import("typedoc").Reflection | undefined, string>} */
  const groups = new Map();
  app.converter.on(Converter.EVENT_CREATE_DECLARATION, (context, reflection) => {
    if (!reflection.parent?.kindOf(ReflectionKind.Module)) return;
    const group = reflection.kindOf(ReflectionKind.Namespace) ? reflection.name : groupOfSymbol(context, context.getSymbolFromReflection(reflection));
    if (group) groups.set(reflection, group);
  });
  // Tags are added once comments are attached, before typedoc groups the members.
  // A runtime type re-exported by several surfaces is a reference on all but the first: same group.
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const reference of context.project.getReflectionsByKind(ReflectionKind.Reference)) {
      const group = groups.get(reference.tryGetTargetReflectionDeep());
      if (group) groups.set(reference, group);
    }
    for (const [reflection, group] of groups) {
      reflection.comment ??= new Comment();
      reflection.comment.blockTags.push(new CommentTag("@group", [{ kind: "text", text: group }]));
    }
  });
}

/**
 * @param {import("typedoc").Context} context
 * @param {import("typescript").Symbol | undefined} symbol
 */
function groupOfSymbol(context, symbol) {
  const declaration = symbol?.declarations?.[0];
  if (!declaration) return undefined;
  return Object.hasOwn(GROUP_OF_MODULE, basename(declaration.getSourceFile().fileName)) ? GROUP_OF_MODULE[basename(declaration.getSourceFile().fileName)] : undefined;
}
