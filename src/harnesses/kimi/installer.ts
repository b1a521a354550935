// Kimi Code's installer as the install engine sees it: plan, apply, doctor, and the hook table.
import { genericApply, type InstallProvider } from "../../install/provider.ts";
import { kimiDoctor } from "./doctor.ts";
import { KIMI_HOOKS, planKimi } from "./install.ts";

export const installer = {
  id: "kimi",
  hooks: KIMI_HOOKS,
  plan: planKimi,
  apply: genericApply,
  doctor: kimiDoctor,
} satisfies InstallProvider;
