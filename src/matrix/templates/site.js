// The report site's filters, applied in the page (no framework, no network). The matrix: era, level and status; a
// row is shown when it is of the chosen era, of the chosen level, and, when a status is chosen, some shown relay's
// cell in it has that status (those cells are outlined). The relays: language, which hides the other relays' rows in
// the relays table and their columns in the matrix (a matrix row no shown relay has a cell in is hidden too). Every
// choice is kept in the URL's query.
// Long: the page's filter script is one closure over its elements (as viewer.js is).
(() => {
  const form = document.getElementById("filters");
  const relayForm = document.getElementById("relay-filters");
  const shown = document.getElementById("shown");
  const relaysShown = document.getElementById("relays-shown");
  const lines = Array.from(document.querySelectorAll("#matrix-table tr.line"));
  const relayRows = Array.from(document.querySelectorAll("#relays-table tr.relay"));
  const columns = Array.from(document.querySelectorAll("#matrix-table th.relay-column"));
  const selects = {
    era: "filter-era",
    level: "filter-level",
    status: "filter-status",
    language: "filter-language",
  };
  const value = (name) => document.getElementById(selects[name])?.value ?? "";

  function apply() {
    const era = value("era");
    const level = value("level");
    const status = value("status");
    const language = value("language");
    const relayShown = (el) => !language || el.dataset.language === language;
    let relays = 0;
    for (const row of relayRows) {
      row.classList.toggle("hidden", !relayShown(row));
      if (relayShown(row)) relays++;
    }
    if (relaysShown) relaysShown.textContent = `${relays} of ${relayRows.length} relays shown`;
    for (const column of columns) column.classList.toggle("hidden", !relayShown(column));
    let count = 0;
    for (const line of lines) {
      const cells = Array.from(line.querySelectorAll("td.cell"));
      for (const cell of cells) cell.classList.toggle("hidden", !relayShown(cell));
      const statuses = cells.filter(relayShown).map((cell) => cell.dataset.status);
      const visible =
        (!era || line.dataset.era === era) &&
        (!level || line.dataset.level === level) &&
        statuses.some((s) => s !== "absent") &&
        (!status || statuses.includes(status));
      line.classList.toggle("hidden", !visible);
      if (visible) count++;
      for (const cell of cells)
        cell.classList.toggle("match", Boolean(status) && relayShown(cell) && cell.dataset.status === status);
    }
    shown.textContent = `${count} of ${lines.length} rows shown`;
  }

  function save() {
    const params = new URLSearchParams();
    for (const name of Object.keys(selects)) if (value(name)) params.set(name, value(name));
    const query = params.toString();
    try {
      history.replaceState(null, "", `${location.pathname}${query ? `?${query}` : ""}${location.hash}`);
    } catch {
      // A page opened from a file may not rewrite its URL in every browser: the filters work without it.
    }
  }

  const initial = new URLSearchParams(location.search);
  for (const name of Object.keys(selects)) {
    const select = document.getElementById(selects[name]);
    const wanted = initial.get(name);
    if (select && wanted && Array.from(select.options).some((o) => o.value === wanted)) select.value = wanted;
  }
  for (const f of [form, relayForm]) {
    if (!f) continue;
    f.addEventListener("change", () => {
      apply();
      save();
    });
    f.addEventListener("submit", (event) => event.preventDefault());
  }
  apply();
})();
