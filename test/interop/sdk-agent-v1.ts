/**
 * The official SDK's ACP v1 agent (`@agentclientprotocol/sdk`, `agent()`, made
 * by sdk-agents.ts) for the interop tests, over stdin/stdout:
 * `npx tsx test/interop/sdk-agent-v1.ts`. The same turn as v1-agent.ts.
 */
import { Readable, Writable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import { sdkAgentV1 } from "./sdk-agents.js";

sdkAgentV1().connect(ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>));
process.stdin.on("end", () => process.exit(0));
