// Broken (2026-07-28): keeps a sampling input from an answerer that did not declare sampling, as it must, but
// answers the call with a generic -32603 and no data instead of MissingRequiredClientCapabilityError (-32021) with
// data.requiredCapabilities, so the client cannot tell what it would have to declare. A pipe around the reference
// relay (the argv after this script) that rewrites that one error on its way downstream.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const relay = spawn(process.execPath, process.argv.slice(2), { stdio: ["pipe", "pipe", "inherit"] });
process.stdin.pipe(relay.stdin);
createInterface({ input: relay.stdout }).on("line", (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    process.stdout.write(`${line}\n`);
    return;
  }
  if (message?.error?.code === -32021)
    message = {
      ...message,
      error: { code: -32603, message: "Internal error: the request could not be processed" },
    };
  process.stdout.write(`${JSON.stringify(message)}\n`);
});
relay.on("exit", (code) => process.exit(code ?? 1));
process.on("SIGTERM", () => relay.kill("SIGTERM"));
