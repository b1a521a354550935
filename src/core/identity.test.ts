import { describe, expect, it } from "vitest";
import { canonicalId, digestOf, placeholderCanonicalId, shortId } from "./identity.ts";

describe("canonical ids", () => {
  // Expected digests computed outside Node: printf '%s' '<json array>' | sha256sum
  it.each([
    [
      "claude",
      "7582db2d-8713-44b4-b330-3fa18e456246",
      "pid:4772@linux:boot:123",
      "cdf29d40ea5f6276e228a73f95372a53776e0451800f59335163c56c9027e236",
    ],
    [
      "codex",
      "7582db2d-8713-44b4-b330-3fa18e456246",
      "pid:4772@linux:boot:123",
      "14e731758c412cb9794815835c66ce7048ffa42fe958cd795cc8d5ae5fbc23ab",
    ],
  ])("hashes the JSON array [%s, session, instance]", (harness, session, instance, digest) => {
    expect(canonicalId(harness, session, instance)).toBe(`fleet:v1:${harness}:${digest}`);
  });

  it("escapes quotes and keeps non-ASCII as UTF-8 in the serialized tuple", () => {
    expect(placeholderCanonicalId("claude", 'sé"ß')).toBe(
      "fleet:v1:claude:054b6ff1dd972070f4be65f797dc69d023976a6d84c5823c0080fd34d95e7533",
    );
  });

  it("never merges different harnesses that share a native session id", () => {
    expect(canonicalId("claude", "same", "pid:1@t")).not.toBe(canonicalId("codex", "same", "pid:1@t"));
  });

  it("cannot be confused by separators inside the parts", () => {
    expect(canonicalId("pi", "a,b", "c")).not.toBe(canonicalId("pi", "a", "b,c"));
    expect(canonicalId("pi", 'a","b', "c")).not.toBe(canonicalId("pi", "a", 'b","c'));
  });

  it("derives file names from the digest only", () => {
    const id = canonicalId("claude", "../../etc/passwd", "/\0");
    expect(digestOf(id)).toMatch(/^[0-9a-f]{64}$/);
    expect(shortId(id)).toBe(digestOf(id)?.slice(0, 10));
    expect(digestOf("fleet:v1:claude:../x")).toBeUndefined();
  });
});
