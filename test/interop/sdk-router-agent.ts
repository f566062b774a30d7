/**
 * The official SDK's version router (`agentProtocolRouter()` of
 * `@agentclientprotocol/sdk/experimental/v2`) serving the interop tests' SDK
 * v1 and v2 agents (sdk-agents.ts) over stdin/stdout:
 * `npx tsx test/interop/sdk-router-agent.ts`. test/negotiate-interop.test.ts
 * drives it with our negotiating client.
 */
import { Readable, Writable } from "node:stream";
import { agentProtocolRouter, ndJsonStream } from "@agentclientprotocol/sdk/experimental/v2";
import { sdkAgentV1, sdkAgentV2 } from "./sdk-agents.js";

agentProtocolRouter()
  .withV1(sdkAgentV1())
  .withV2(sdkAgentV2())
  .connect(ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>));
process.stdin.on("end", () => process.exit(0));
