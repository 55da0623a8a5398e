// Broken: keeps a conversation per upstream. It remembers the messages of every sampling request it passed on and
// puts them in front of the next request's own (a "chat session" kept across requests), so each separate request
// reaches the answerer with the earlier requests' messages replayed ahead of its own.
import { runBroken } from "./lib/broken.ts";

let history: unknown[] = [];

await runBroken("retains-messages", {
  rewriteRequest: (params) => {
    const own = Array.isArray(params.messages) ? params.messages : [];
    const merged = { ...params, messages: [...history, ...own] };
    history = merged.messages;
    return merged;
  },
});
