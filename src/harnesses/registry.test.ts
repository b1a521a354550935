import { describe, expect, it } from "vitest";
import { INSTALLERS } from "./installers.ts";
import { HARNESSES, hasCapability } from "./registry.ts";

describe("the harness registry and the installers agree", () => {
  it("every hook harness's installer wires exactly the events the registry accepts, each once", () => {
    for (const harness of HARNESSES.filter((candidate) => hasCapability(candidate, "hooks"))) {
      const installer = INSTALLERS.find((candidate) => candidate.id === harness.id);
      const aliases = (installer?.hooks ?? []).map((spec) => spec.alias);
      expect({ id: harness.id, aliases: [...aliases].sort() }).toEqual({ id: harness.id, aliases: [...harness.events].sort() });
      expect(new Set((installer?.hooks ?? []).map((spec) => spec.event)).size).toBe(aliases.length);
    }
  });

  it("every installer belongs to a registered harness, once", () => {
    const ids = INSTALLERS.map((installer) => installer.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(HARNESSES.map((harness) => harness.id)).toContain(id);
    // An extension harness installs no hooks.
    for (const installer of INSTALLERS)
      if (installer.hooks === undefined)
        expect(HARNESSES.find((harness) => harness.id === installer.id)?.capabilities).toContain("extension");
  });
});
