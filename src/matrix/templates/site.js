// The report site's filters: era, level and status, applied to the matrix table's rows in the page (no framework,
// no network). A row is shown when it is of the chosen era, of the chosen level, and, when a status is chosen, some
// relay's cell in it has that status (those cells are outlined). The choice is kept in the URL's query.
(() => {
  const form = document.getElementById("filters");
  const shown = document.getElementById("shown");
  const lines = Array.from(document.querySelectorAll("#matrix-table tr.line"));
  const selects = { era: "filter-era", level: "filter-level", status: "filter-status" };
  const value = (name) => document.getElementById(selects[name]).value;

  function apply() {
    const era = value("era");
    const level = value("level");
    const status = value("status");
    let count = 0;
    for (const line of lines) {
      const statuses = (line.dataset.statuses || "").split(" ");
      const visible =
        (!era || line.dataset.era === era) &&
        (!level || line.dataset.level === level) &&
        (!status || statuses.includes(status));
      line.classList.toggle("hidden", !visible);
      if (visible) count++;
      for (const cell of line.querySelectorAll("td.cell"))
        cell.classList.toggle("match", Boolean(status) && cell.dataset.status === status);
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
    if (wanted && Array.from(select.options).some((o) => o.value === wanted)) select.value = wanted;
  }
  form.addEventListener("change", () => {
    apply();
    save();
  });
  form.addEventListener("submit", (event) => event.preventDefault());
  apply();
})();
