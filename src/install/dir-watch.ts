// The kernel's own record of what happened in a directory, in order (inotify through fs.watch), so that the installer
// can tell whether anything else touched a file between its last comparison and its rename: a rename cannot be made
// conditional, but what came before it in the event stream can be checked afterwards. Marker files, created and removed
// by us, say where in the stream a point in our own code falls.
import { watch, type FSWatcher } from "node:fs";
import { join } from "node:path";
import { uniqueSuffix } from "../store/records.ts";
import { createAndRemove } from "../store/sessions-watch.ts";

export interface DirWatch {
  /**
   * Call after renaming `ours` over `target`: whether any event named `target` between the arming marker and our rename.
   * Undefined when the stream could not be followed to the end (an overflow or error of the watch, a marker never seen).
   */
  touchedBefore(ours: string, target: string): Promise<boolean | undefined>;
  close(): void;
}

/** How long to wait for a marker's event; a file system without working inotify never delivers it. */
const MARKER_TIMEOUT_MS = 1000;

/**
 * Watch `dir` and arm the watch with a first marker: resolves once that marker's event arrived (so the watch works on
 * this file system), or undefined when it cannot (no inotify watches left, a file system that reports nothing).
 */
export async function watchDir(dir: string, base: string): Promise<DirWatch | undefined> {
  const names: string[] = [];
  let broken = false;
  let waiting: { name: string; seen: () => void } | undefined;
  let watcher: FSWatcher;
  try {
    watcher = watch(dir, { persistent: false }, (_event, name) => {
      const text = name === null ? "" : String(name);
      names.push(text);
      if (waiting !== undefined && text === waiting.name) waiting.seen();
    });
  } catch {
    return undefined;
  }
  watcher.on("error", () => {
    broken = true;
    waiting?.seen();
  });
  /** Create and remove a marker; resolves with its name once its first event arrived, or undefined. */
  const mark = async (): Promise<string | undefined> => {
    const name = `${base}.${process.pid}.${uniqueSuffix()}.mark.tmp`;
    let timer: NodeJS.Timeout | undefined;
    let done = () => {};
    const seen = new Promise<boolean>((resolve) => {
      done = () => resolve(true);
      timer = setTimeout(() => resolve(false), MARKER_TIMEOUT_MS);
    });
    waiting = { name, seen: done };
    if (!createAndRemove(join(dir, name))) {
      broken = true;
      done();
    }
    const arrived = await seen;
    clearTimeout(timer);
    waiting = undefined;
    return arrived && !broken ? name : undefined;
  };
  const armed = await mark();
  if (armed === undefined) {
    watcher.close();
    return undefined;
  }
  return {
    async touchedBefore(ours, target) {
      if ((await mark()) === undefined) return undefined;
      const start = names.indexOf(armed);
      const end = names.indexOf(ours, start);
      if (start < 0 || end < 0) return undefined;
      return names.slice(start, end).includes(target);
    },
    close: () => watcher.close(),
  };
}
