// Claude's installer as the install engine sees it: plan, apply, doctor, and the hook table.
import { genericApply, type InstallProvider } from "../../install/provider.ts";
import { claudeDoctor } from "./doctor.ts";
import { CLAUDE_HOOKS, planClaude } from "./install.ts";

export const installer = {
  id: "claude",
  hooks: CLAUDE_HOOKS,
  plan: planClaude,
  apply: genericApply,
  doctor: claudeDoctor,
} satisfies InstallProvider;
