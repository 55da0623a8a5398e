// matrix.html's viewer: filters and the evidence viewer. Inlined into the page (its sha256 is the page's
// only allowed script). Data arrives as JSON in the page's application/json script elements and is shown
// with textContent / text nodes only: nothing from results or evidence ever becomes markup.
// Long: the page's one inline script is a single closure (its sha256 is the page's only allowed script).
(() => {
  const byId = (id) => document.getElementById(id);
  const readJson = (id, fallback) => {
    const node = byId(id);
    if (!node) return fallback;
    try {
      return JSON.parse(node.textContent || "null") ?? fallback;
    } catch (error) {
      console.warn(`mcpx-conform: cannot read #${id}: ${error}`);
      return fallback;
    }
  };
  const data = readJson("matrix-data", { cells: {}, rows: {}, glyphs: {} });
  const evidence = readJson("evidence", {});
  // The check catalogue (the check table, src/judge/checks/): what each check id proves, shown on hover.
  const catalogue = readJson("checks", {});
  // A failed check's mark by level: advisory failures only warn; info checks are judged elsewhere (another row).
  // Words, not symbols: the page must read without an emoji or symbol font.
  const FAILED_MARK = {
    must: { class: "badge s-fail", text: "failed" },
    advisory: { class: "badge s-warn", text: "failed (advisory)" },
    info: { class: "muted", text: "failed (counted elsewhere)" },
  };
  const checkMark = (c) =>
    c.ok
      ? { class: "badge s-pass", text: "ok" }
      : has(FAILED_MARK, c.level)
        ? FAILED_MARK[c.level]
        : FAILED_MARK.must;
  const has = (object, key) => object !== null && typeof object === "object" && Object.hasOwn(object, key);

  // A status is shown as its word on its colour (class "badge s-<status>"), never as an emoji.
  const statusLabel = (s) => String(s);
  const statusClass = (s) => `badge s-${String(s).replace(/[^a-z-]/g, "")}`;

  /** A relative path without scheme: safe as a link target. */
  const isRelative = (p) =>
    typeof p === "string" &&
    p.length > 0 &&
    !/^[a-z][a-z0-9+.-]*:/i.test(p) &&
    !p.startsWith("//") &&
    !p.startsWith("\\") &&
    // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters
    !/[\u0000-\u001f\u007f]/.test(p);
  const isHttps = (u) => {
    try {
      return new URL(u).protocol === "https:";
    } catch {
      return false;
    }
  };

  /** Builds an element; children are nodes or strings (strings become text nodes). */
  function h(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "class") node.className = String(value);
      else if (key === "text") node.textContent = String(value);
      else if (key === "href") {
        if (isRelative(value) || isHttps(value)) node.setAttribute("href", String(value));
      } else if (/^(data-[a-z-]+|title|type|colspan|scope|aria-[a-z]+|rel|target|open)$/.test(key))
        node.setAttribute(key, String(value));
    }
    for (const child of children) {
      if (child === undefined || child === null || child === false) continue;
      node.append(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  const text = (value) =>
    value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);

  // ---------------------------------------------------------------- filters

  const fEra = byId("f-era");
  const fSide = byId("f-side");
  const fStatus = byId("f-status");
  const shown = byId("shown");

  function applyFilters() {
    const era = fEra ? fEra.value : "";
    const side = fSide ? fSide.value : "";
    const statuses = new Set(
      Array.from(fStatus ? fStatus.querySelectorAll("input[type=checkbox]") : [])
        .filter((box) => box.checked)
        .map((box) => box.value),
    );
    for (const node of document.querySelectorAll("#matrix [data-era]")) {
      node.classList.toggle("hidden", era !== "" && node.getAttribute("data-era") !== era);
    }
    let visible = 0;
    let total = 0;
    for (const row of document.querySelectorAll("#matrix tbody tr")) {
      let rowVisible = 0;
      for (const cell of row.querySelectorAll("td[data-status]")) {
        total++;
        const inEra = era === "" || cell.getAttribute("data-era") === era;
        const match = statuses.has(cell.getAttribute("data-status") || "");
        cell.classList.toggle("filtered", !match);
        if (inEra && match) rowVisible++;
      }
      const show = (side === "" || row.getAttribute("data-side") === side) && rowVisible > 0;
      row.classList.toggle("hidden", !show);
      if (show) visible += rowVisible;
    }
    if (shown) shown.textContent = `${visible} of ${total} cells shown`;
  }

  for (const control of [fEra, fSide, fStatus]) {
    if (control) control.addEventListener("change", applyFilters);
  }
  applyFilters();

  // ---------------------------------------------------------------- evidence viewer

  const viewer = byId("viewer");
  const layout = byId("layout");

  function summarize(message) {
    if (message === undefined) return "";
    if (message === null || typeof message !== "object") return text(message);
    if (typeof message.method === "string")
      return message.id !== undefined ? `${message.method} #${text(message.id)}` : message.method;
    if (message.error && typeof message.error === "object")
      return `error ${text(message.error.code)} ${text(message.error.message)}`;
    if (has(message, "result")) {
      const result = message.result;
      const kind =
        result && typeof result === "object" && typeof result.resultType === "string"
          ? ` ${result.resultType}`
          : "";
      return `result${kind}${message.id !== undefined ? ` #${text(message.id)}` : ""}`;
    }
    if (typeof message.event === "string") return message.event;
    return "message";
  }

  const ARROWS = {
    "upstream|to-relay": "upstream → relay",
    "upstream|from-relay": "upstream ← relay",
    "downstream|from-relay": "relay → downstream",
    "downstream|to-relay": "relay ← downstream",
  };

  function frameView(frame) {
    const arrow = ARROWS[`${frame.end}|${frame.dir}`] || `${text(frame.end)} ${text(frame.dir)}`;
    const body =
      has(frame, "raw") && frame.raw !== undefined
        ? String(frame.raw)
        : JSON.stringify(frame.message, null, 2);
    return h(
      "div",
      { class: `frame dir-${frame.dir === "to-relay" ? "to-relay" : "from-relay"}` },
      h("span", { class: "arrow", text: arrow }),
      " ",
      h("span", { class: "summary", text: has(frame, "raw") ? "raw (not JSON)" : summarize(frame.message) }),
      frame.session ? h("span", { class: "muted", text: ` · session ${text(frame.session)}` }) : null,
      h("details", { open: "" }, h("summary", { text: "message" }), h("pre", { text: body ?? "" })),
    );
  }

  function transcript(frames) {
    const ordered = frames
      .map((frame, index) => ({ frame, index }))
      .sort((a, b) => (Number(a.frame.t) || 0) - (Number(b.frame.t) || 0) || a.index - b.index)
      .map((x) => x.frame);
    const body = h("tbody");
    for (const frame of ordered) {
      // --stable evidence records no times: the frames are in the order they were seen.
      const t = h("td", { class: "t", text: frame.t === undefined ? "—" : String(frame.t) });
      if (frame.end === "upstream")
        body.append(h("tr", { "data-end": "upstream" }, t, h("td", {}, frameView(frame)), h("td")));
      else if (frame.end === "downstream")
        body.append(h("tr", { "data-end": "downstream" }, t, h("td"), h("td", {}, frameView(frame))));
      else
        body.append(
          h(
            "tr",
            { "data-end": "control" },
            t,
            h(
              "td",
              { colspan: "2", class: "control" },
              `control: ${summarize(frame.message)} `,
              h("code", { text: text(frame.message ?? frame.raw) }),
            ),
          ),
        );
    }
    const colgroup = h("colgroup", {}, h("col", { class: "t" }), h("col"), h("col"));
    return h(
      "table",
      { class: "transcript", "aria-label": "wire transcript" },
      colgroup,
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col", text: "t (ms)" }),
          h("th", { scope: "col", text: "upstream end (harness server and relay)" }),
          h("th", { scope: "col", text: "downstream end (relay and answerer)" }),
        ),
      ),
      body,
    );
  }

  function outcomeText(outcome) {
    if (!outcome || typeof outcome !== "object") return "unknown";
    switch (outcome.kind) {
      case "result":
        return `a result: ${text(outcome.result)}`;
      case "error":
        return `error ${text(outcome.error?.code)}: ${text(outcome.error?.message)}`;
      case "withheld":
        return `no response for the input (${text(outcome.detail)})`;
      case "timeout":
        return outcome.deadlineMs !== undefined
          ? `nothing within the harness's ${text(outcome.deadlineMs)} ms deadline`
          : `nothing within ${text(outcome.afterMs)} ms`;
      case "broken":
        return `a broken exchange (${text(outcome.detail)})`;
      default:
        return text(outcome);
    }
  }

  /**
   * How often the answering side was asked, counted and worded as the judge's answerer-asked check does
   * (src/judge/case.ts): the model downstream and, on review targets, each request shown to the reviewer.
   */
  function askedText(obs) {
    // The page embeds counts (asked, reviewed); a whole transcript has the lists.
    const asked = Array.isArray(obs.asked) ? obs.asked.length : Number(obs.asked) || 0;
    const reviews = Array.isArray(obs.reviews)
      ? obs.reviews.filter((r) => r && r.stage === "request").length
      : Number(obs.reviewed) || 0;
    const n = asked + reviews;
    return n > 0 ? `the answerer was asked (${n}×)` : "the answerer was never asked";
  }

  // Long: builds one case's DOM (verdict, checks, both ends' frames) with text nodes only, in reading order.
  function caseView(result) {
    const ev = result.evidence && has(evidence, result.evidence) ? evidence[result.evidence] : null;
    const parts = [
      h(
        "h3",
        {},
        h("span", { class: statusClass(result.status), text: statusLabel(result.status) }),
        " ",
        result.id,
      ),
      h("p", { class: "reason", text: result.reason }),
    ];
    if (result.evidence) {
      parts.push(
        h(
          "p",
          { class: "muted" },
          "evidence: ",
          h("a", { href: result.evidence, text: result.evidence }),
          result.evidenceSha256 ? ` · sha256 ${String(result.evidenceSha256).slice(0, 16)}…` : "",
        ),
      );
    }
    if (!ev) {
      parts.push(
        h("p", {
          class: "muted",
          text: result.evidence
            ? "This transcript is not embedded in the page (matrix.html keeps within its size budget): open its file, linked above."
            : "No transcript is embedded for this case.",
        }),
      );
      return parts;
    }
    parts.push(
      h(
        "p",
        { class: "muted" },
        ev.case?.title ? ev.case.title : "",
        ev.case?.why ? ` — ${ev.case.why}` : "",
      ),
      h(
        "p",
        {},
        "verdict: ",
        h("span", { class: statusClass(ev.verdict.status), text: statusLabel(ev.verdict.status) }),
        ` — ${text(ev.verdict.reason)}`,
      ),
    );
    // A transcript over its size budget says what was cut (src/model/evidence-budget.ts).
    if (ev.budget && typeof ev.budget.note === "string")
      parts.push(h("p", { class: "note", text: `Transcript cut: ${ev.budget.note}` }));
    const checks = Array.isArray(ev.verdict.checks) ? ev.verdict.checks : [];
    if (checks.length > 0) {
      parts.push(
        h(
          "table",
          { class: "checks", "aria-label": "checks" },
          h(
            "thead",
            {},
            h("tr", {}, h("th", { text: "check" }), h("th", { text: "ok" }), h("th", { text: "detail" })),
          ),
          h(
            "tbody",
            {},
            ...checks.map((c) =>
              h(
                "tr",
                {},
                h("td", {
                  text: text(c.id),
                  title: has(catalogue, c.id) ? `${catalogue[c.id].proves} (${catalogue[c.id].rule})` : "",
                }),
                h("td", checkMark(c)),
                h("td", { text: text(c.detail) }),
              ),
            ),
          ),
        ),
      );
    }
    const obs = ev.observation || {};
    parts.push(
      h(
        "p",
        {},
        `upstream got ${outcomeText(obs.upstream)}; ${askedText(obs)}. `,
        h(
          "span",
          { class: "muted" },
          `negotiated upstream ${text(ev.negotiated?.upstream)}, downstream ${text(ev.negotiated?.downstream)}${ev.durationMs === undefined ? "" : `; ${text(ev.durationMs)} ms`}`,
        ),
      ),
      h("h3", { text: "Wire transcript" }),
      transcript(Array.isArray(ev.frames) ? ev.frames : []),
    );
    return parts;
  }

  let pressed = null;

  /** Keeps the open cell in the URL (deep links); some origins (about:blank) refuse, which is harmless. */
  function setHash(hash) {
    try {
      if (location.hash !== hash) history.replaceState(null, "", hash || location.pathname + location.search);
    } catch {
      // no history on this origin
    }
  }

  /** `#<cell key>` or `#<cell key>&case=<case id>`: the open cell and the selected case. */
  function hashFor(key, caseId) {
    return `#${encodeURIComponent(key)}${caseId === undefined ? "" : `&case=${encodeURIComponent(caseId)}`}`;
  }

  function showCase(cell, index, key) {
    if (key !== undefined) setHash(hashFor(key, cell.cases[index]?.id));
    const list = byId("v-cases");
    if (list) {
      list.querySelectorAll("button").forEach((b, i) => {
        b.setAttribute("aria-pressed", String(i === index));
      });
    }
    const target = byId("v-case");
    if (target) target.replaceChildren(...caseView(cell.cases[index]));
  }

  function openCell(key, caseId) {
    if (!has(data.cells, key) || !viewer) return;
    const cell = data.cells[key];
    const row = has(data.rows, cell.row) ? data.rows[cell.row] : null;
    if (pressed) pressed.setAttribute("aria-pressed", "false");
    pressed =
      Array.from(document.querySelectorAll("button.cell")).find((b) => b.getAttribute("data-cell") === key) ||
      null;
    if (pressed) pressed.setAttribute("aria-pressed", "true");

    byId("v-title").replaceChildren(
      h("span", { class: statusClass(cell.status), text: statusLabel(cell.status) }),
      ` ${cell.row} @ ${cell.era} (${cell.side})`,
    );
    byId("v-row-title").textContent = row ? row.title : "";
    const firstEvidence = cell.cases
      .map((c) => (c.evidence && has(evidence, c.evidence) ? evidence[c.evidence] : null))
      .find(Boolean);
    // The quote as recorded with the evidence; the link is this cell's era's page and the level the register's (one casing).
    // The cell's own row: a finding attributed from another row's case carries that row's rule in its evidence.
    const quote = row?.quote || firstEvidence?.rule?.quote;
    const rule = quote ? { quote, url: cell.specUrl || row?.url || "", level: row?.level || "" } : null;
    // Register quotes mark the keyword in bold (**SHOULD**); shown as plain text, the markers go.
    byId("v-quote").textContent = rule ? String(rule.quote).replace(/\*\*(.+?)\*\*/g, "$1") : "";
    byId("v-quote").classList.toggle("hidden", !rule);
    byId("v-rule").replaceChildren(
      ...(rule
        ? [
            rule.level ? `${rule.level} · ` : "",
            isHttps(rule.url)
              ? h("a", { href: rule.url, rel: "noreferrer noopener", target: "_blank", text: rule.url })
              : text(rule.url),
          ]
        : []),
    );
    byId("v-note").textContent = cell.note || (cell.cases.length === 0 ? "This cell has no cases." : "");
    const list = byId("v-cases");
    list.replaceChildren(
      ...cell.cases.map((c, i) => {
        const button = h(
          "button",
          { type: "button", "aria-pressed": "false", "data-case": c.id },
          h("span", { class: statusClass(c.status), text: statusLabel(c.status) }),
          ` ${c.id}`,
        );
        button.addEventListener("click", () => showCase(cell, i, key));
        return h("li", {}, button);
      }),
    );
    byId("v-case").replaceChildren();
    viewer.classList.remove("hidden");
    if (layout) layout.classList.add("open");
    // Narrow windows stack the viewer above the matrix (matrix.css): bring it into view.
    if (window.matchMedia?.("(max-width: 1000px)").matches) viewer.scrollIntoView({ block: "start" });
    if (cell.cases.length > 0) {
      const asked = caseId === undefined ? -1 : cell.cases.findIndex((c) => c.id === caseId);
      const miss = cell.cases.findIndex((c) => c.status !== "pass");
      showCase(cell, asked >= 0 ? asked : Math.max(miss, 0), key);
    } else setHash(hashFor(key));
  }

  function closeViewer() {
    if (!viewer) return;
    viewer.classList.add("hidden");
    if (layout) layout.classList.remove("open");
    if (pressed) pressed.setAttribute("aria-pressed", "false");
    pressed = null;
    setHash("");
  }

  const matrix = byId("matrix");
  if (matrix) {
    matrix.addEventListener("click", (event) => {
      const button = event.target instanceof Element ? event.target.closest("button.cell") : null;
      if (button) openCell(button.getAttribute("data-cell") || "");
    });
  }
  const close = byId("v-close");
  if (close) close.addEventListener("click", closeViewer);
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") closeViewer();
  });

  const openFromHash = () => {
    if (location.hash.length > 1) {
      try {
        const [key, ...rest] = location.hash.slice(1).split("&");
        const param = rest.find((p) => p.startsWith("case="));
        const caseId = param === undefined ? undefined : decodeURIComponent(param.slice(5));
        openCell(decodeURIComponent(key), caseId);
      } catch {
        // a malformed hash is ignored
      }
    }
  };
  window.addEventListener("hashchange", openFromHash);
  openFromHash();
})();
