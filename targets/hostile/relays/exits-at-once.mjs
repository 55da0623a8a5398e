#!/usr/bin/env node
// Hostile relay: exits at once with a complaint on stderr, before reading anything.
process.stderr.write("hostile relay: cannot start (configuration missing)\n");
process.exit(1);
