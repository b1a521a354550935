// Cline's installer as the install engine sees it: plan, apply, doctor, and the hook table.
import { genericApply, type InstallProvider } from "../../install/provider.ts";
import { clineDoctor } from "./doctor.ts";
import { CLINE_HOOKS, planCline } from "./install.ts";

export const installer = {
  id: "cline",
  hooks: CLINE_HOOKS,
  plan: planCline,
  apply: genericApply,
  doctor: clineDoctor,
} satisfies InstallProvider;
