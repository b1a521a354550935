// What a host tells the user's machine about its sessions that may notify (`tongs-agents notify changes --json`, run
// over ssh by the keypress server's host watch, hosts-watch.ts): every live session in a state that can notify
// (waiting, error, idle), as `list --json` shows it, and whether the user already looks at it here, judged by the same
// survey the local notifier uses (survey.ts). Which states notify, and whether this change was told already, the
// user's machine decides: this side keeps no mark and sends nothing.
import { listSessions, type FleetContext } from "../fleet/queries.ts";
import type { SessionView } from "../fleet/view.ts";
import type { Runner } from "../core/exec.ts";
import { isNotifyState } from "./config.ts";
import { onScreen, surveyPlaces } from "./survey.ts";
import { realWorld } from "./world.ts";

export type ChangeHere = SessionView & {
  /** The user looks at it here (a focused client shows its pane): not notified, as for a local session. */
  readonly on_screen: boolean;
  /** Why, or why not: for the log on the user's machine. */
  readonly on_screen_why: string;
  /** Where it runs here, as a notification names it: `tmux %3 (work:1.0)`. */
  readonly where: string;
};

export async function hostChanges(context: FleetContext & { readonly env: NodeJS.ProcessEnv; readonly run?: Runner }): Promise<{
  sessions: ChangeHere[];
  problem?: string;
}> {
  const listed = await listSessions(context);
  const sessions = listed.sessions.filter((session) => isNotifyState(session.status));
  const world = { ...realWorld(context.stateDir, { env: context.env }), ...(context.run ? { run: context.run } : {}) };
  const places = await surveyPlaces(sessions, world);
  return {
    sessions: sessions.map((session, index) => {
      const place = places[index];
      const seen = place ? onScreen(place) : { onScreen: false, why: "not surveyed" };
      return { ...session, on_screen: seen.onScreen, on_screen_why: seen.why, where: place?.where ?? "" };
    }),
    ...(listed.problem ? { problem: listed.problem } : {}),
  };
}
