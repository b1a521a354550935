import { describe, expect, it } from "vitest";
import { codexEventKey, codexTrustHash, codexTrustKey } from "./trust.ts";

describe("Codex hook trust", () => {
  it("matches hashes reported by the real codex app-server hooks/list (codex-cli 0.171.0)", () => {
    // Recorded from `codex app-server` hooks/list for a hooks.json with these three hooks (timeout 5).
    expect(codexTrustHash({ event: "PreToolUse", matcher: "", command: "/usr/bin/true tool-use", timeout: 5 })).toBe(
      "sha256:c8756c3e484351457f29ef27756bef476e5d8d313af7b0ce17412c5db5d14e0b",
    );
    expect(codexTrustHash({ event: "UserPromptSubmit", command: "/usr/bin/true x", timeout: 5 })).toBe(
      "sha256:1516a042cd6d417385b0a74d226a662cbe7db85905a43abaa11e5d3e3831089c",
    );
    expect(codexTrustHash({ event: "Stop", command: "/usr/bin/true stop", timeout: 5 })).toBe(
      "sha256:03942bc2eb927c864ce1c4b39854bbe6e28666c1761b3a7b7158ee3f8cafe9a1",
    );
  });

  it("names events and keys like Codex", () => {
    expect(
      ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PermissionRequest", "Stop", "Interrupt", "SessionEnd"].map(
        codexEventKey,
      ),
    ).toEqual([
      "session_start",
      "user_prompt_submit",
      "pre_tool_use",
      "post_tool_use",
      "permission_request",
      "stop",
      "interrupt",
      "session_end",
    ]);
    expect(codexTrustKey("/h/.codex/hooks.json", "PreToolUse", 1, 0)).toBe("/h/.codex/hooks.json:pre_tool_use:1:0");
  });
});
