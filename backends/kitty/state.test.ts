import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../test/processes.ts";
import { checkFocus, parsePlacements } from "./state.ts";

// Recorded from kitty 0.26.5 under Xvfb (no window manager): OS window 1 (tab 1: window 1) and OS window 2, focused,
// with tab 2 (window 2, active) and tab 3 (windows 3 and 4, window 3 active in it). Environments, working directories
// and titles were blanked before saving.
const recorded = readFileSync(join(ROOT, "test", "fixtures", "kitty", "ls-0.26.5.json"), "utf8");

describe("kitty ls, as recorded from kitty 0.26.5", () => {
  const placements = parsePlacements(recorded);

  it("flattens OS windows, tabs and windows and keeps nothing of the environment", () => {
    expect(placements?.map((placement) => [placement.osWindowId, placement.tabId, placement.windowId])).toEqual([
      [1, 1, 1],
      [2, 2, 2],
      [2, 3, 3],
      [2, 3, 4],
    ]);
    expect(placements?.[0]).toEqual({
      windowId: 1,
      tabId: 1,
      osWindowId: 1,
      platformWindowId: 2097164,
      activeInTab: true,
      tabActive: true,
      osWindowFocused: false,
      focused: false,
    });
  });

  it("0.26's window is_focused ignores the tab: windows 2 and 3 both say true, only window 2 is focused", () => {
    const raw = JSON.parse(recorded) as { tabs: { windows: { id: number; is_focused: boolean }[] }[] }[];
    const sayFocused = raw.flatMap((os) =>
      os.tabs.flatMap((tab) => tab.windows.filter((window) => window.is_focused).map((window) => window.id)),
    );
    expect(sayFocused).toEqual([2, 3]);
    expect(placements?.filter((placement) => placement.focused).map((placement) => placement.windowId)).toEqual([2]);
  });

  it.each([
    [2, { selected: true, osWindowFocused: true, complete: true }],
    // Active in its tab, but the tab is not the active one.
    [3, { selected: false, osWindowFocused: true, complete: false }],
    [4, { selected: false, osWindowFocused: true, complete: false }],
    // Selected in an OS window that is not focused: selection without activation.
    [1, { selected: true, osWindowFocused: false, complete: false }],
  ])("window %i", (windowId, expected) => {
    expect(checkFocus(placements ?? [], windowId)).toMatchObject({ ...expected, focusedIds: [2] });
  });

  it("a window that is not listed has no placement", () => {
    expect(checkFocus(placements ?? [], 99)).toMatchObject({
      placement: undefined,
      selected: false,
      osWindowFocused: false,
      complete: false,
    });
  });
});

describe("kitty ls, other shapes", () => {
  it("reads newer kitty's is_active for tabs and windows [source: kitty docs, not run here]", () => {
    const newer = JSON.stringify([
      {
        id: 1,
        is_active: true,
        is_focused: true,
        platform_window_id: 77,
        tabs: [
          { id: 1, is_active: false, is_focused: false, windows: [{ id: 1, is_active: true, is_focused: false }] },
          {
            id: 2,
            is_active: true,
            is_focused: true,
            windows: [
              { id: 2, is_active: false, is_focused: false },
              { id: 3, is_active: true, is_focused: true },
            ],
          },
        ],
      },
    ]);
    const placements = parsePlacements(newer) ?? [];
    expect(checkFocus(placements, 3)).toMatchObject({ selected: true, complete: true, focusedIds: [3] });
    expect(checkFocus(placements, 1)).toMatchObject({ selected: false, complete: false });
  });

  it("two OS windows that both claim the focus are not an activation of either", () => {
    const both = JSON.stringify(
      [1, 2].map((id) => ({
        id,
        is_focused: true,
        tabs: [{ id, is_focused: true, is_active_tab: true, windows: [{ id, is_focused: true, is_active_window: true }] }],
      })),
    );
    expect(checkFocus(parsePlacements(both) ?? [], 1)).toMatchObject({
      selected: true,
      osWindowFocused: false,
      complete: false,
      focusedIds: [1, 2],
    });
  });

  it.each([
    ["not JSON", "{"],
    ["not a list", '{"id": 1}'],
    ["missing fields", '[{"id": 1, "tabs": [{}]}]'],
    ["not a string", 42],
  ])("rejects %s", (_name, data) => {
    expect(parsePlacements(data)).toBeUndefined();
  });
});
