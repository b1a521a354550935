// OpenCode's installer as the install engine sees it: plan, apply, doctor.
import { genericApply, type InstallProvider } from "../../install/provider.ts";
import { opencodeDoctor } from "./doctor.ts";
import { planOpencode } from "./install.ts";

export const installer = {
  id: "opencode",
  plan: planOpencode,
  apply: genericApply,
  doctor: opencodeDoctor,
} satisfies InstallProvider;
