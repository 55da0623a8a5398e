import { check, family } from "./check.ts";

/** A case that names the checks its rule rests on (`checks:`) is not judged on a run where they never ran. */
export const RELIED = family({
  checks: [
    check({
      id: "relied-check-ran",
      proves: "every check the case names as its rule's evidence was evaluated on this exchange",
      rule: "the case's own row",
      // Last in the table: every other check of the exchange is recorded before it (`earlier`).
      judge: ({ reliesOn, earlier }) => {
        if (!reliesOn?.length) return [];
        const missing = reliesOn.filter((id) => !earlier.some((c) => c.id === id));
        return [
          {
            ok: missing.length === 0,
            detail:
              missing.length === 0
                ? `the checks this case rests on ran: ${reliesOn.join(", ")}`
                : `the checks this case rests on never ran on this exchange: ${missing.join(", ")}`,
          },
        ];
      },
    }),
  ],
});
