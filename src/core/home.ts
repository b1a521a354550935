// Paths as a user reads them: the home directory as `~`.
import { homedir } from "node:os";

export function shortenHome(path: string, home: string = homedir()): string {
  return home !== "/" && (path === home || path.startsWith(`${home}/`)) ? `~${path.slice(home.length)}` : path;
}
