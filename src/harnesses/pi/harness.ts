// Pi: an extension in Pi's own process (pi-bridge/) sends normalized events with its own PID, instance token and sequence.
import { FLEET_EVENT, type Harness } from "../contract.ts";

export const piHarness = {
  id: "pi",
  displayName: "Pi",
  processNames: ["pi"],
  events: [FLEET_EVENT],
  identity: "emitter-pid",
  capabilities: ["extension", "focus"],
  installHelp: "the bridge extension, with `pi install`",
  reports: {
    started: { by: "extension" },
    running: { by: "extension" },
    tool: { by: "extension" },
    waiting: { by: "extension", limit: "only dialogs an extension opens (Pi itself asks nothing)" },
    idle: { by: "extension" },
    error: { by: "extension" },
    interrupted: { by: "extension" },
    ended: { by: "extension" },
  },
  // 0.73.1 is the older package line (@mariozechner/pi-coding-agent), live on the host (test/live/pi-install.ts).
  provenVersions: ["1.6.0", "0.73.1"],
  // Pi's extension events, kebab-cased (the bridge in pi-bridge/ maps them; docs/contract.md).
  emitterEvents: {
    "session-start": ["started"],
    "before-agent-start": ["running"],
    "agent-start": ["running"],
    "tool-execution-start": ["running"],
    "ui-prompt-start": ["waiting"],
    // Back to running inside an agent run; idle when the prompt was opened while Pi was idle (an extension command).
    "ui-prompt-end": ["running", "idle"],
    "agent-end": ["idle", "error"],
    "agent-settled": ["idle"],
    "session-shutdown": ["ended"],
  },
  // A dialog opens a wait and its end answers it; a new run, the end of a run and the session's start or end close
  // it. A tool starting meanwhile (Pi runs tools in parallel) leaves it open.
  emitterWaits: {
    "session-start": "clear",
    "before-agent-start": "clear",
    "agent-start": "clear",
    "ui-prompt-start": "input",
    "ui-prompt-end": "answered",
    "agent-end": "clear",
    "agent-settled": "clear",
    "session-shutdown": "clear",
  },
} as const satisfies Harness;
