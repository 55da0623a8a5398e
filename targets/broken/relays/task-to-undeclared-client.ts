// Broken: passes params.task on as the upstream sent it, whatever the downstream declared — as relays do that copy
// the request through. An answerer without tasks support is asked with a task-augmented createMessage, though
// "Requestors SHOULD only augment requests with a task if the corresponding capability has been declared by the
// receiver" (2025-11-25 tasks). Everything else (includeContext included) is the reference relay.
import { fitForDownstream } from "../../../src/relay/policy.ts";
import { runBroken } from "./lib/broken.ts";

await runBroken("task-to-undeclared-client", {
  fitForDownstream: (params, downstream) => {
    const fitted = fitForDownstream(params, downstream);
    return params.task === undefined ? fitted : { ...fitted, task: params.task };
  },
});
