// Broken: sends the upstream's sampling request to the downstream as soon as it arrives, whether or not the
// downstream has sent notifications/initialized — as relays do that treat an answered initialize as the end of the
// handshake. The lifecycle says "The server SHOULD NOT send requests other than pings and logging before receiving
// the initialized notification." Everything else is the reference relay.
import { runBroken } from "./lib/broken.ts";

await runBroken("asks-before-initialized", { awaitsInitialized: false });
