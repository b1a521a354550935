// What kitty's `ls` says about focus, reduced to what verification needs. `ls` also carries every window's full
// environment and command line: the schema drops them on parse, and nothing here logs or returns them.
import * as z from "zod/mini";

// kitty 0.26: a window's `is_focused` is "its OS window is focused and it is the active window of its tab", whatever
// tab is active (several windows said true at once); a tab's `is_focused` is "active tab of the focused OS window".
// Newer kitty renames `is_active_tab` / `is_active_window` to `is_active`: both spellings are read.
const WindowSchema = z.object({
  id: z.number(),
  is_focused: z.boolean(),
  is_active_window: z.optional(z.boolean()),
  is_active: z.optional(z.boolean()),
});
const TabSchema = z.object({
  id: z.number(),
  is_focused: z.boolean(),
  is_active_tab: z.optional(z.boolean()),
  is_active: z.optional(z.boolean()),
  windows: z.array(WindowSchema),
});
const OsWindowSchema = z.object({
  id: z.number(),
  is_focused: z.boolean(),
  platform_window_id: z.optional(z.nullable(z.number())),
  tabs: z.array(TabSchema),
});
const LsSchema = z.array(OsWindowSchema);

/** One kitty window, where it sits, and the focus flags verification reads. */
export interface Placement {
  readonly windowId: number;
  readonly tabId: number;
  readonly osWindowId: number;
  /** The OS window's X11 window id (Wayland and macOS: none or not an X id). */
  readonly platformWindowId: number | undefined;
  /** The active window of its tab. */
  readonly activeInTab: boolean;
  /** Its tab is the active tab of its OS window. */
  readonly tabActive: boolean;
  readonly osWindowFocused: boolean;
  /** OS window focused, tab focused, window focused: the window that receives keystrokes. */
  readonly focused: boolean;
}

/** Parse `ls` data (a JSON string); undefined when it is not the shape kitty returns. */
export function parsePlacements(data: unknown): Placement[] | undefined {
  if (typeof data !== "string") return undefined;
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return undefined;
  }
  const parsed = LsSchema.safeParse(json);
  if (!parsed.success) return undefined;
  return parsed.data.flatMap((os) =>
    os.tabs.flatMap((tab) =>
      tab.windows.map((window) => ({
        windowId: window.id,
        tabId: tab.id,
        osWindowId: os.id,
        platformWindowId: os.platform_window_id ?? undefined,
        activeInTab: window.is_active_window ?? window.is_active ?? false,
        tabActive: tab.is_active_tab ?? tab.is_active ?? false,
        osWindowFocused: os.is_focused,
        focused: os.is_focused && tab.is_focused && window.is_focused,
      })),
    ),
  );
}

export interface FocusCheck {
  readonly placement: Placement | undefined;
  /** Selection: the target is the active window of the active tab of its OS window. */
  readonly selected: boolean;
  /** Activation: the target's OS window is the one focused OS window. */
  readonly osWindowFocused: boolean;
  /** Both, and the target is the one window that receives keystrokes (the whole verification). */
  readonly complete: boolean;
  /** Ids of the windows that say they are focused (normally zero or one). */
  readonly focusedIds: readonly number[];
}

export function checkFocus(placements: readonly Placement[], windowId: number): FocusCheck {
  const placement = placements.find((candidate) => candidate.windowId === windowId);
  const focusedIds = placements.filter((candidate) => candidate.focused).map((candidate) => candidate.windowId);
  const focusedOsWindows = new Set(placements.filter((candidate) => candidate.osWindowFocused).map((candidate) => candidate.osWindowId));
  const selected = placement !== undefined && placement.activeInTab && placement.tabActive;
  const osWindowFocused = placement !== undefined && placement.osWindowFocused && focusedOsWindows.size === 1;
  return {
    placement,
    selected,
    osWindowFocused,
    complete: selected && osWindowFocused && focusedIds.length === 1 && focusedIds[0] === windowId,
    focusedIds,
  };
}
