// docs/support-matrix.md's "What each harness can report" is the adapters' own table (scripts/support-matrix.ts), and
// the versions each harness says its hooks were proven on are the ones the live suites pin.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { AGENTS } from "../containers/recipe.ts";
import { HARNESSES } from "../src/harnesses/registry.ts";
import { MATRIX_PATH, renderReportsSection, withSection } from "../scripts/support-matrix.ts";
import { HARNESS_PACKAGES } from "./live/harnesses.ts";
import { PI_RELEASES } from "./live/pi-install.ts";

describe("one table for what each harness can report", () => {
  it("docs/support-matrix.md's generated section is what the adapters declare (run `node scripts/support-matrix.ts`)", () => {
    const document = readFileSync(MATRIX_PATH, "utf8");
    expect(withSection(document)).toBe(document);
  });

  it("the section changes with the table: a row declared otherwise no longer matches the document", () => {
    const document = readFileSync(MATRIX_PATH, "utf8");
    const claude = HARNESSES[0];
    const changed = renderReportsSection().replace(`| ${claude.provenVersions.join(", ")} |`, "| 0.0.0 |");
    expect(changed).not.toBe(renderReportsSection());
    expect(withSection(document, changed)).not.toBe(document);
  });
});

describe("the versions the hooks were proven on", () => {
  it("are the live suites' pinned versions, in test/live/harnesses.json and the container recipe alike", () => {
    const pinned = new Map<string, string[]>(Object.entries(HARNESS_PACKAGES).map(([id, entry]) => [id, [entry.version]]));
    // Pi's older package line runs live on the host beside the pinned one (test/live/pi-install.ts).
    pinned.get("pi")?.push(PI_RELEASES.legacy.version);
    expect(Object.fromEntries(HARNESSES.map((harness) => [harness.id, [...harness.provenVersions].sort()]))).toEqual(
      Object.fromEntries([...pinned].map(([id, versions]) => [id, versions.sort()])),
    );
    for (const [id, recipe] of Object.entries(AGENTS))
      expect({ id, ...recipe }).toEqual({
        id,
        package: HARNESS_PACKAGES[id as keyof typeof HARNESS_PACKAGES].package,
        version: HARNESS_PACKAGES[id as keyof typeof HARNESS_PACKAGES].version,
      });
  });
});
