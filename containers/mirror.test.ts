import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_MIRROR, findMirror, mirrorFromDeb822, mirrorFromSourcesList, parseDeb822 } from "./mirror.ts";

// The file on the project's Debian 12 machines, verbatim.
const DEBIAN_SOURCES = `Types: deb
# http://snapshot.debian.org/archive/debian/20250520T000000Z
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
# http://snapshot.debian.org/archive/debian-security/20250520T000000Z
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
`;

describe("the Debian mirror for debootstrap", () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const aptDir = (files: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), "apt-"));
    dirs.push(dir);
    mkdirSync(join(dir, "sources.list.d"));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return dir;
  };

  it("parses deb822 stanzas, skipping comments and joining continuation lines", () => {
    expect(parseDeb822("Types: deb\n# note\nURIs: http://a/debian\n  http://b/debian\n\n\nTypes: deb-src\n")).toEqual([
      { types: "deb", uris: "http://a/debian http://b/debian" },
      { types: "deb-src" },
    ]);
  });

  it("takes the stanza serving the suite itself, not its -security or -updates siblings", () => {
    expect(mirrorFromDeb822(DEBIAN_SOURCES, "bookworm")).toBe("http://deb.debian.org/debian");
    expect(mirrorFromDeb822(DEBIAN_SOURCES, "bookworm-security")).toBe("http://deb.debian.org/debian-security");
    expect(mirrorFromDeb822(DEBIAN_SOURCES, "trixie")).toBeUndefined();
  });

  it("ignores disabled stanzas and deb-src, and trims a trailing slash", () => {
    const text =
      "Enabled: no\nTypes: deb\nURIs: http://off/debian\nSuites: bookworm\n\nTypes: deb-src\nURIs: http://src/debian\nSuites: bookworm\n\nTypes: deb\nURIs: http://mirror.example/debian/\nSuites: bookworm\n";
    expect(mirrorFromDeb822(text, "bookworm")).toBe("http://mirror.example/debian");
  });

  it("reads one-line sources.list entries, options included", () => {
    expect(mirrorFromSourcesList("# c\ndeb [arch=amd64 signed-by=/k.gpg] http://m/debian/ bookworm main\n", "bookworm")).toBe(
      "http://m/debian",
    );
    expect(mirrorFromSourcesList("deb http://m/debian bookworm-updates main\n", "bookworm")).toBeUndefined();
  });

  it("prefers sources.list.d/*.sources, then sources.list, else deb.debian.org", () => {
    expect(
      findMirror(
        "bookworm",
        aptDir({ "sources.list.d/debian.sources": DEBIAN_SOURCES, "sources.list": "deb http://other/debian bookworm main\n" }),
      ),
    ).toBe("http://deb.debian.org/debian");
    expect(findMirror("bookworm", aptDir({ "sources.list": "deb http://other/debian bookworm main\n" }))).toBe("http://other/debian");
    expect(findMirror("bookworm", aptDir({}))).toBe(DEFAULT_MIRROR);
  });
});
