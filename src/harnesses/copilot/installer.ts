// Copilot CLI's installer as the install engine sees it: plan, apply, doctor, and the hook table.
import { genericApply, type InstallProvider } from "../../install/provider.ts";
import { copilotDoctor } from "./doctor.ts";
import { COPILOT_HOOKS, planCopilot } from "./install.ts";

export const installer = {
  id: "copilot",
  hooks: COPILOT_HOOKS,
  plan: planCopilot,
  apply: genericApply,
  doctor: copilotDoctor,
} satisfies InstallProvider;
