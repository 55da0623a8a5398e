// Broken: refuses tool_use blocks in a result to a request without tools, but never looks at stopReason, so a
// tools-less request can come back with stopReason "toolUse" — the upstream is told the model wants to call a
// tool it was never offered.
import { validateResult } from "../../../src/validator/index.ts";
import { runBroken, verdictOf } from "./lib/broken.ts";

await runBroken("tool-use-stop-unchecked", {
  checkResult: (result, ctx) => {
    const v = validateResult(result, ctx);
    return verdictOf(
      v.errors.filter((f) => f.pointer !== "/stopReason"),
      v.warnings,
    );
  },
});
