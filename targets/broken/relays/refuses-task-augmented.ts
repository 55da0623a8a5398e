// Broken: refuses a task-augmented request (params.task) because it did not declare task support — as the TS
// SDK's Client does by default — where the spec says a receiver that did not declare the task capability "MUST
// process requests of that type normally, ignoring any task-augmentation metadata".
import { validateRequest } from "../../../src/validator/index.ts";
import { runBroken } from "./lib/broken.ts";

await runBroken("refuses-task-augmented", {
  checkRequest: (params, ctx) => {
    if (params && typeof params === "object" && "task" in params) {
      return {
        legal: false,
        errors: [
          {
            rule: "relay.task-not-supported",
            pointer: "/task",
            level: "MUST",
            message: "task-augmented sampling is not supported: this client did not declare tasks",
            code: -32602,
            source: "targets/broken/relays/refuses-task-augmented.ts",
          },
        ],
        warnings: [],
        code: -32602,
      };
    }
    return validateRequest(params, ctx);
  },
});
