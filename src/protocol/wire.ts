/** Method names, `_meta` keys and error codes of the MCP wire that the harness, the relays and the judge share. */

export const METHOD = {
  initialize: "initialize",
  initialized: "notifications/initialized",
  cancelled: "notifications/cancelled",
  discover: "server/discover",
  createMessage: "sampling/createMessage",
  toolsCall: "tools/call",
  toolsList: "tools/list",
  ping: "ping",
} as const;

/** Client requests that may be answered with an input_required result (2026-07-28). */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set([
  "tools/call",
  "prompts/get",
  "resources/read",
]);

/** Per-request `_meta` keys of 2026-07-28. */
export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  serverInfo: "io.modelcontextprotocol/serverInfo",
} as const;

/** JSON-RPC and MCP error codes the sampling rules name. */
export const CODE = {
  /** The user rejected the sampling request (the spec's example code). */
  userRejected: -1,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** 2026-07-28: a required client capability is missing (data.requiredCapabilities). */
  missingCapability: -32021,
  /** 2026-07-28: the protocol version is not supported. */
  unsupportedProtocolVersion: -32022,
} as const;

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
