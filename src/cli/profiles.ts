// Launch profiles: $XDG_CONFIG_HOME/tongs-agents/profiles.json maps a profile name to how an agent starts:
// {"profiles": {"review": {"command": "claude", "args": ["--model", "opus"], "cwd": "~/src/app", "env": {"X": "1"}}}}
import { homedir } from "node:os";
import { join } from "node:path";
import * as z from "zod/mini";
import { ENV_KEY_PATTERN, PROFILE_ID_PATTERN, describeIssue } from "../core/schema.ts";
import { quoted } from "../core/terminal-text.ts";
import { readJsonFile } from "../store/records.ts";

const ProfileSchema = z.strictObject({
  command: z.string().check(z.minLength(1), z.maxLength(4096)),
  args: z.optional(z.array(z.string().check(z.maxLength(4096))).check(z.maxLength(256))),
  cwd: z.optional(z.string().check(z.minLength(1), z.maxLength(4096))),
  env: z.optional(
    z.record(z.string().check(z.regex(ENV_KEY_PATTERN, "not an environment variable name")), z.string().check(z.maxLength(4096))),
  ),
});
export type Profile = z.infer<typeof ProfileSchema>;

const ProfilesFileSchema = z.strictObject({
  profiles: z.record(z.string().check(z.regex(PROFILE_ID_PATTERN, "profile names are [a-z0-9][a-z0-9_-]{0,31}")), ProfileSchema),
});

export function profilesPath(env: NodeJS.ProcessEnv, home: string = env.HOME ?? homedir()): string {
  return join(
    env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith("/") ? env.XDG_CONFIG_HOME : join(home, ".config"),
    "tongs-agents",
    "profiles.json",
  );
}

export type ProfileLookup = { ok: true; profile: Profile } | { ok: false; detail: string };

export function loadProfile(name: string, env: NodeJS.ProcessEnv): ProfileLookup {
  if (!PROFILE_ID_PATTERN.test(name)) return { ok: false, detail: `not a profile name: ${quoted(name)} (use [a-z0-9][a-z0-9_-]{0,31})` };
  const path = profilesPath(env);
  const file = readJsonFile(path, 256 * 1024);
  if (file.kind === "absent") return { ok: false, detail: `no profiles file at ${path}` };
  if (file.kind === "invalid") return { ok: false, detail: `${path}: ${file.detail}` };
  const parsed = ProfilesFileSchema.safeParse(file.value);
  // Profiles are written by hand: a mistake is named with the value found and what is allowed.
  if (!parsed.success) return { ok: false, detail: `${path}: ${describeIssue(parsed.error, file.value, ProfilesFileSchema)}` };
  const profile = parsed.data.profiles[name];
  return profile
    ? { ok: true, profile }
    : {
        ok: false,
        detail: `no profile ${quoted(name)} in ${path} (it has: ${Object.keys(parsed.data.profiles).join(", ") || "none"})`,
      };
}

export function expandHome(path: string, home: string): string {
  return path === "~" ? home : path.startsWith("~/") ? join(home, path.slice(2)) : path;
}
