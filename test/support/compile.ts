/**
 * Type-checks TypeScript files with the compiler API under the consumer
 * settings the generated code promises: strict, exactOptionalPropertyTypes,
 * noUncheckedIndexedAccess, for module `nodenext` and `bundler`.
 */
import { fileURLToPath } from "node:url";
import ts from "typescript";

export type ModuleMode = "nodenext" | "bundler";

export const MODULE_MODES: readonly ModuleMode[] = ["nodenext", "bundler"];

/** The compiler options of a strict consumer in the given module mode. */
export function consumerOptions(mode: ModuleMode): ts.CompilerOptions {
  const common: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
    skipLibCheck: false,
    types: [],
  };
  return mode === "nodenext"
    ? { ...common, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext }
    : { ...common, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler };
}

/** The mapping of tsconfig.json: the examples import the package by name, `acp-bindings/<entry>` is generated/src/<entry>/index.ts. */
export const PACKAGE_PATHS: ts.MapLike<string[]> = { "acp-bindings/*": [fileURLToPath(new URL("../../generated/src/*/index.ts", import.meta.url))] };

/** Every diagnostic of a program over `files`, formatted `file:line:col message`. */
export function typeCheck(files: readonly string[], mode: ModuleMode): string[] {
  const program = ts.createProgram(files, consumerOptions(mode));
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, "\n");
    if (!d.file || d.start === undefined) return message;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${d.file.fileName}:${line + 1}:${character + 1} ${message}`;
  });
}
