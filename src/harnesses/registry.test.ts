import { describe, expect, it } from "vitest";
import { EMITTED_EVENTS } from "../../opencode-plugin/map.js";
import { statedStateReader } from "./stated.ts";
import { loadInstaller } from "./installers.ts";
import { opencodeHarness } from "./opencode/harness.ts";
import { HARNESSES, hasCapability, INSTALLABLE_IDS } from "./registry.ts";

describe("a harness is its folder and its line in the registry", () => {
  it("every hook or extension harness has an installer in its folder, for its own id", async () => {
    expect(INSTALLABLE_IDS).toEqual(
      HARNESSES.filter((harness) => hasCapability(harness, "hooks") || hasCapability(harness, "extension")).map((harness) => harness.id),
    );
    for (const id of INSTALLABLE_IDS) expect((await loadInstaller(id)).id).toBe(id);
  });

  it("every hook harness's installer wires exactly the events the registry accepts, each once", async () => {
    for (const harness of HARNESSES.filter((candidate) => hasCapability(candidate, "hooks"))) {
      const installer = await loadInstaller(harness.id);
      // A hook that holds (Claude Code's held PermissionRequest hook) reports no event: it sits beside its event's own.
      const reporting = (installer.hooks ?? []).filter((spec) => !spec.holds);
      const aliases = reporting.map((spec) => spec.alias);
      expect({ id: harness.id, aliases: [...aliases].sort() }).toEqual({ id: harness.id, aliases: [...harness.events].sort() });
      expect(new Set(reporting.map((spec) => spec.event)).size).toBe(aliases.length);
      for (const held of (installer.hooks ?? []).filter((spec) => spec.holds))
        expect(reporting.map((spec) => spec.event)).toContain(held.event);
    }
  });

  it("an extension harness installs no hooks", async () => {
    for (const harness of HARNESSES.filter((candidate) => hasCapability(candidate, "extension")))
      expect((await loadInstaller(harness.id)).hooks).toBeUndefined();
  });

  it("a harness with the stated capability has a reader in its folder; one without has none", async () => {
    for (const harness of HARNESSES)
      expect({ id: harness.id, reader: (await statedStateReader(harness.id)) !== undefined }).toEqual({
        id: harness.id,
        reader: hasCapability(harness, "stated"),
      });
  });

  it("the OpenCode plugin emits exactly the events the registry accepts from it, and every wait rule names one of them", () => {
    expect([...EMITTED_EVENTS].sort()).toEqual(Object.keys(opencodeHarness.emitterEvents).sort());
    for (const name of Object.keys(opencodeHarness.emitterWaits)) expect(EMITTED_EVENTS).toContain(name);
  });
});
