// Launch identity: which `tongs-agents launch` (and profile) started a session. Each value is validated on its own; a
// bad value is omitted and never rejects the event.
import { LAUNCH_ID_PATTERN, PROFILE_ID_PATTERN, type Launch } from "./schema.ts";

export const LAUNCH_ID_ENV = "TONGS_AGENTS_LAUNCH_ID";
export const PROFILE_ENV = "TONGS_AGENTS_PROFILE";

export function launchFromEnv(env: NodeJS.ProcessEnv): Launch | undefined {
  return validLaunch(env[LAUNCH_ID_ENV], env[PROFILE_ENV]);
}

/** Readers keep a record whose `launch` is malformed: valid parts stay, the rest is dropped. */
export function sanitizeLaunch(value: unknown): Launch | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { launch_id: launchId, profile_id: profileId } = value as Record<string, unknown>;
  return validLaunch(launchId, profileId);
}

function validLaunch(launchId: unknown, profileId: unknown): Launch | undefined {
  const launch: Launch = {};
  if (typeof launchId === "string" && LAUNCH_ID_PATTERN.test(launchId)) launch.launch_id = launchId;
  if (typeof profileId === "string" && PROFILE_ID_PATTERN.test(profileId)) launch.profile_id = profileId;
  return launch.launch_id === undefined && launch.profile_id === undefined ? undefined : launch;
}
