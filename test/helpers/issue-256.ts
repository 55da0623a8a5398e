/** The rows of dezren39/darwin-nix#256 as DESIGN.md names them (eight cells: validation has both sides). */
export const ISSUE_256_ROWS = [
  "sampling-human-in-loop-can-deny",
  "sampling-app-review-ui",
  "sampling-app-view-edit-prompts",
  "sampling-app-review-responses",
  "sampling-client-user-approval-controls",
  "sampling-both-validate-message-content",
  "sampling-client-errors-user-rejected-and-tool-shape",
] as const;
