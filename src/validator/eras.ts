/** The eras as the validator's public API names them; they live in src/protocol (see docs/architecture.md). */
export { ERAS, type Era, eraAtLeast, isEra, isModernEra } from "../protocol/eras.ts";
