// A harness's installer is `installer` in its own folder's installer.ts, loaded by its id when install, uninstall or
// doctor needs it: the registry (registry.ts) stays the one list of harnesses, and the hook, which loads the registry,
// never loads an installer (the build bundles these files only into the install verb).
import type { InstallProvider } from "../install/provider.ts";
import { INSTALLABLE_IDS, type HarnessId } from "./registry.ts";

export async function loadInstaller(id: HarnessId): Promise<InstallProvider> {
  const { installer } = (await import(`./${id}/installer.ts`)) as { installer: InstallProvider };
  return installer;
}

/** The installers of `ids`, in the registry's order. */
export async function installersFor(ids: readonly string[]): Promise<InstallProvider[]> {
  return Promise.all(INSTALLABLE_IDS.filter((id) => ids.includes(id)).map(loadInstaller));
}
