#!/usr/bin/env node
// Hostile relay: exits at once with a complaint on stderr, before reading anything. The complaint quotes a
// credential and the profile's env value (both must be redacted from results) and says whether a variable of
// the harness's own environment reached it (it must not: the relay gets an allowlisted environment).
process.stderr.write(
  `hostile relay: cannot start: API_TOKEN=sk-hostile-0123456789abcdef rejected; secret ${process.env.HOSTILE_SECRET}; leak=${process.env.MCPX_HOSTILE_LEAK ?? "none"}\n`,
);
process.exit(1);
