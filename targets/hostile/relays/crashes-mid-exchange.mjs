#!/usr/bin/env node
// Hostile relay: a pass-through that crashes (exit 70) the moment the upstream sends a sampling request, so the
// session starts and every case's exchange breaks half-way.
import { passThrough } from "./lib.mjs";

passThrough({
  down(message) {
    if (message.method === "sampling/createMessage") {
      process.stderr.write("hostile relay: segmentation fault (simulated) while relaying sampling\n");
      process.exit(70);
    }
    return message;
  },
});
