// Broken: passes includeContext on as the upstream sent it, whatever the downstream declared — as relays do that
// treat the request as opaque and mirror sampling.context upstream faithfully but never look at the field again. An
// answerer that declared {sampling: {}} is asked with includeContext "thisServer"/"allServers", which servers
// "SHOULD NOT use … unless the client declares `sampling.context` capability". Everything else (task included) is
// the reference relay.
import { fitForDownstream } from "../../../src/relay/policy.ts";
import { runBroken } from "./lib/broken.ts";

await runBroken("includecontext-to-undeclared-client", {
  fitForDownstream: (params, downstream) => {
    const fitted = fitForDownstream(params, downstream);
    return params.includeContext === undefined
      ? fitted
      : { ...fitted, includeContext: params.includeContext };
  },
});
