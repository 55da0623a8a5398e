import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";

/**
 * Debian's chromium driven by playwright-core, for the browser tests. When it is missing those tests FAIL (with
 * `missingChromium`), they never skip: CI installs it (`npm run test:setup`).
 */
export const CHROMIUM = "/usr/bin/chromium";

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** The message a browser test fails with when chromium is not installed; `what` names the test. */
export const missingChromium = (what: string) =>
  `${CHROMIUM} is missing: ${what} needs Debian's chromium (apt-get install -y chromium). It fails rather than skips.`;

/** Chromium, headless and offline, with its profile under `work`; undefined when it is not installed. */
export async function launchChromium(work: string): Promise<BrowserContext | undefined> {
  if (!existsSync(CHROMIUM)) return undefined;
  return chromium.launchPersistentContext(join(work, "profile"), {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    offline: true,
  });
}

/** Everything a page did that a safe, self-contained page must not. */
export interface Watch {
  problems: string[];
  requests: string[];
  dialogs: string[];
}

/** Opens a local file (with a hash or query) in a new page, watching its console, errors, requests and dialogs. */
export async function openWatched(
  context: BrowserContext,
  file: string,
  suffix = "",
): Promise<{ page: Page; watch: Watch }> {
  const page = await context.newPage();
  const watch: Watch = { problems: [], requests: [], dialogs: [] };
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning")
      watch.problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => watch.problems.push(`page error: ${e.message}`));
  page.on("request", (r) => watch.requests.push(r.url()));
  page.on("dialog", (d) => {
    watch.dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(`${pathToFileURL(file).href}${suffix}`, { waitUntil: "load" });
  return { page, watch };
}
