// Codex's installer as the install engine sees it: plan, apply, doctor, and the hook table.
import { genericApply, type InstallProvider } from "../../install/provider.ts";
import { codexDoctor } from "./doctor.ts";
import { CODEX_HOOKS, planCodex } from "./install.ts";

export const installer = {
  id: "codex",
  hooks: CODEX_HOOKS,
  plan: planCodex,
  apply: genericApply,
  doctor: codexDoctor,
} satisfies InstallProvider;
