import type { CellSide } from "../model/register.ts";

/**
 * Which register row a validator finding on a delivered message counts toward. A relay that hands its answerer
 * an invalid request, or its upstream an invalid result, breaks the rule the validator names, whatever the case
 * that happened to carry the exchange was about. Rules without a row of their own count toward the #256 row
 * `sampling-both-validate-message-content` (client: requests, server: results).
 */

/** The channel a delivered message travelled on: a request to the answerer, or a result to the upstream. */
export type DeliveredChannel = "request" | "result";

export interface RowRef {
  row: string;
  side: CellSide;
}

const VALIDATE_ROW = "sampling-both-validate-message-content";

const BY_RULE: Readonly<Record<string, RowRef>> = {
  "message.tool-result-only": { row: "sampling-tool-result-message-only-tool-results", side: "server" },
  "message.tool-result-missing": { row: "sampling-tool-use-result-balance", side: "server" },
  "message.tool-result-unmatched": { row: "sampling-toolresult-id-must-match-tooluse", side: "server" },
  "message.duplicate-tool-id": { row: "sampling-toolresult-id-must-match-tooluse", side: "server" },
  "message.role": { row: "sampling-message-must-have-role-and-content", side: "server" },
  "message.content": { row: "sampling-message-must-have-role-and-content", side: "server" },
  "message.structured-content-schema": {
    row: "sampling-toolresult-structured-conform-outputschema",
    side: "server",
  },
  "request.tools-capability": { row: "sampling-server-no-tools-without-capability", side: "server" },
  "result.tool-use-without-tools": { row: "sampling-result-no-tool-use-without-tools", side: "server" },
  "result.tool-use-with-tool-choice-none": {
    row: "sampling-toolchoice-none-model-must-not-use-tools",
    side: "client",
  },
};

/** The fallback row of a channel: validating message content (requests on the client side, results on the server's). */
export function fallbackRow(channel: DeliveredChannel): RowRef {
  return { row: VALIDATE_ROW, side: channel === "request" ? "client" : "server" };
}

/**
 * The row a finding counts toward, given which rows have a cell in this era (`hasCell`); falls back to the
 * validate row when the rule's own row does not exist in the era.
 */
export function rowForRule(
  rule: string,
  channel: DeliveredChannel,
  hasCell: (row: string) => boolean = () => true,
): RowRef {
  const own = BY_RULE[rule];
  return own && hasCell(own.row) ? own : fallbackRow(channel);
}
