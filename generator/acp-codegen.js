#!/usr/bin/env node
// The `acp-codegen` bin (package.json "bin"): runs generator/cli.ts through
// tsx's loader, so the generator needs no build step.
import { register } from "tsx/esm/api";

register();
const { runCliWithEmitters } = await import("./cli.ts");
process.exitCode = await runCliWithEmitters(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
