// Pi's installer as the install engine sees it: plan, apply, doctor.
import type { InstallProvider } from "../../install/provider.ts";
import { piDoctor } from "./doctor.ts";
import { applyPi, planPi } from "./install.ts";

export const installer = {
  id: "pi",
  plan: planPi,
  apply: applyPi,
  doctor: piDoctor,
} satisfies InstallProvider;
