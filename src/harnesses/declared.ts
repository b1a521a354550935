// Agents the user declares in config.json ("agents"; docs/declared-agents.md): a harness that is not built in, known by
// its exact process names and, when it can run a command on its events, a table from its event names to states. Each
// entry is checked on its own: a bad one is rejected with a reason and the others still work. The hook loads this
// only for an agent id that is not built in; the fleet, doctor and the MCP server load it to discover and list.
import * as z from "zod/mini";
import { lazySchema } from "../core/lazy-schema.ts";
import { readConfigFile } from "../core/config-file.ts";
import { HARNESS_ID_PATTERN, LIFECYCLE_STATUSES, describeIssue, type LifecycleStatus, type WaitEffect } from "../core/schema.ts";
import { isStorableText } from "../core/bounds.ts";
import type { Harness, Report } from "./contract.ts";
import { HARNESSES } from "./registry.ts";

/** At most this many declared agents, and per agent this many process names and events. */
export const DECLARED_LIMITS = { agents: 32, processNames: 8, events: 32, processNameBytes: 64, entryBytes: 4096 } as const;

/** An event name: the second half of the record's `last_event` (`<id>.<event>`), as for emitter events. */
export const DECLARED_EVENT_PATTERN = /^[a-z][a-z0-9-]{0,63}$/;

const processName = lazySchema(() =>
  z.string().check(
    z.minLength(1),
    z.maxLength(DECLARED_LIMITS.processNameBytes),
    z.refine(
      (name) => isStorableText(name) && !name.includes("/") && !/[\s\p{Cc}]/u.test(name),
      "not a plain process name (no /, no whitespace or control characters)",
    ),
  ),
);

const DeclaredAgentSchema = lazySchema(() =>
  z.strictObject({
    id: z.string().check(z.regex(HARNESS_ID_PATTERN, "not a lowercase id (a-z, 0-9, -; at most 32, starting with a letter)")),
    process_names: z.array(processName).check(z.minLength(1), z.maxLength(DECLARED_LIMITS.processNames)),
    events: z.optional(
      z
        .record(
          z.string().check(z.regex(DECLARED_EVENT_PATTERN, "not an event name (a-z, 0-9, -; starting with a letter)")),
          z.enum(LIFECYCLE_STATUSES),
        )
        .check(z.refine((events) => Object.keys(events).length <= DECLARED_LIMITS.events, `more than ${DECLARED_LIMITS.events} events`)),
    ),
  }),
);
export type DeclaredAgentEntry = z.infer<typeof DeclaredAgentSchema>;

export interface DeclaredAgent {
  readonly harness: Harness;
  /** Event name → the state it sets; empty when the agent runs no command on its events (discovery only). */
  readonly events: Readonly<Record<string, LifecycleStatus>>;
}

export interface DeclaredAgents {
  readonly path: string;
  readonly agents: readonly DeclaredAgent[];
  /** One line per rejected entry (or for the file), saying which and why. */
  readonly problems: readonly string[];
  /** Ids of rejected entries, when they could be read: the hook names the reason instead of "unknown harness". */
  readonly rejected: Readonly<Record<string, string>>;
}

/** How each state opens or closes waits (store/waits.ts): an event states only the state, so the wait follows it. */
const WAIT_OF: Readonly<Record<LifecycleStatus, WaitEffect>> = {
  started: "clear",
  running: "answered",
  waiting: "input",
  idle: "clear",
  error: "clear",
  ended: "clear",
};

export function declaredWait(status: LifecycleStatus): WaitEffect {
  return WAIT_OF[status];
}

/** What a declared agent reports: the states its events set, nothing else (a tool, an Esc, are not states of their own). */
function declaredReports(events: Readonly<Record<string, LifecycleStatus>>): Harness["reports"] {
  const set = new Set(Object.values(events));
  const row = (status: LifecycleStatus): Report =>
    set.has(status) ? { by: "hook" } : { by: "none", why: "no event of it is declared to set it" };
  const notDeclarable: Report = { by: "none", why: "a declared agent's events set states only" };
  return {
    started: row("started"),
    running: row("running"),
    tool: notDeclarable,
    waiting: row("waiting"),
    idle: row("idle"),
    error: row("error"),
    interrupted: notDeclarable,
    ended: row("ended"),
  };
}

/** Validate the "agents" section: each entry on its own, against the built-in harnesses and the entries before it. */
export function parseDeclaredAgents(section: unknown, path = "config.json", builtIns: readonly Harness[] = HARNESSES): DeclaredAgents {
  const agents: DeclaredAgent[] = [];
  const problems: string[] = [];
  const rejected: Record<string, string> = {};
  if (section === undefined) return { path, agents, problems, rejected };
  if (!Array.isArray(section)) return { path, agents, problems: [`${path}: agents: not a list`], rejected };
  const claimed = new Map<string, string>(builtIns.flatMap((harness) => harness.processNames.map((name) => [name, harness.id] as const)));
  const ids = new Set<string>();
  section.forEach((entry: unknown, index) => {
    const idOf = (entry as { id?: unknown } | null)?.id;
    const label = typeof idOf === "string" && HARNESS_ID_PATTERN.test(idOf) ? `agents[${index}] (${idOf})` : `agents[${index}]`;
    const refuse = (reason: string) => {
      problems.push(`${path}: ${label}: ${reason}; entry ignored`);
      if (typeof idOf === "string" && HARNESS_ID_PATTERN.test(idOf) && !(idOf in rejected)) rejected[idOf] = reason;
    };
    if (index >= DECLARED_LIMITS.agents) return refuse(`more than ${DECLARED_LIMITS.agents} agents`);
    const size = Buffer.byteLength(JSON.stringify(entry) ?? "");
    if (size > DECLARED_LIMITS.entryBytes) return refuse(`entry larger than ${DECLARED_LIMITS.entryBytes} bytes`);
    const parsed = DeclaredAgentSchema.safeParse(entry);
    if (!parsed.success) return refuse(describeIssue(parsed.error, entry, DeclaredAgentSchema));
    const { id, process_names: names, events = {} } = parsed.data;
    if (builtIns.some((harness) => harness.id === id)) return refuse(`id ${JSON.stringify(id)} is a built-in harness`);
    if (ids.has(id)) return refuse(`id ${JSON.stringify(id)} is declared twice`);
    const taken = names.find((name) => claimed.has(name));
    if (taken !== undefined) return refuse(`process name ${JSON.stringify(taken)} is already ${claimed.get(taken)}'s`);
    ids.add(id);
    for (const name of names) claimed.set(name, id);
    const hooks = Object.keys(events).length > 0;
    agents.push({
      harness: {
        id,
        displayName: id,
        processNames: [...names],
        events: [],
        identity: "process-ancestry",
        capabilities: hooks ? ["hooks", "discovery", "focus"] : ["discovery", "focus"],
        reports: declaredReports(events),
        provenVersions: [],
      },
      events,
    });
  });
  return { path, agents, problems, rejected };
}

/** The declared agents of the user's config.json; a file that cannot be read declares none and says why. */
export function loadDeclaredAgents(env: NodeJS.ProcessEnv): DeclaredAgents {
  const file = readConfigFile(env);
  if (file.kind === "absent") return { path: file.path, agents: [], problems: [], rejected: {} };
  if (file.kind === "invalid") return { path: file.path, agents: [], problems: [`${file.detail}; no declared agents`], rejected: {} };
  return parseDeclaredAgents(file.sections.agents, file.path);
}

export function findDeclared(declared: DeclaredAgents, id: string): DeclaredAgent | undefined {
  return declared.agents.find((agent) => agent.harness.id === id);
}
