import { describe, expect, it } from "vitest";
import { EMITTED_EVENTS } from "../../opencode-plugin/map.js";
import { INSTALLERS } from "./installers.ts";
import { opencodeHarness } from "./opencode/harness.ts";
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

  it("the OpenCode plugin emits exactly the events the registry accepts from it, and every wait rule names one of them", () => {
    expect([...EMITTED_EVENTS].sort()).toEqual(Object.keys(opencodeHarness.emitterEvents).sort());
    for (const name of Object.keys(opencodeHarness.emitterWaits)) expect(EMITTED_EVENTS).toContain(name);
  });
});
