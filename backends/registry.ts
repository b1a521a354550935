// Focus backends in detection order: multiplexers first (a pane inside tmux inside kitty is tmux's to focus; tmux
// then raises kitty's window), then terminals, then plain X11 windows. The first backend whose detect() returns a
// target handles the session; no other backend is tried after a failure.
import { registerBackend, type RegisteredBackend } from "./contract.ts";
import { applescriptBackend } from "./applescript/backend.ts";
import { kittyBackend } from "./kitty/backend.ts";
import { screenBackend } from "./screen/backend.ts";
import { tmuxBackend } from "./tmux/backend.ts";
import { weztermBackend } from "./wezterm/backend.ts";
import { x11Backend } from "./x11/backend.ts";

export const BACKENDS: readonly RegisteredBackend[] = [
  registerBackend(tmuxBackend),
  registerBackend(screenBackend),
  registerBackend(kittyBackend),
  registerBackend(weztermBackend),
  registerBackend(applescriptBackend),
  // x11 stays last: kitty (and others) also set WINDOWID, and claim their windows first.
  registerBackend(x11Backend),
];
