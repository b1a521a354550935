// Writing a notification's bytes to a terminal device: only a character device under /dev that belongs to us, opened
// without following a symlink, without becoming our controlling terminal and without blocking (a terminal paused with
// Ctrl-S must not hang the notifier). One write() call, so the sequence reaches the terminal in one piece.
import { closeSync, constants, fstatSync, openSync, writeSync } from "node:fs";

export type TtyWrite = { readonly ok: true } | { readonly ok: false; readonly detail: string };

const TTY_PATH = /^\/dev\/(pts\/\d+|tty[A-Za-z0-9]*)$/;

export function writeTty(path: string, data: string): TtyWrite {
  if (!TTY_PATH.test(path)) return { ok: false, detail: `${JSON.stringify(path.slice(0, 64))} is not a terminal device path` };
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_NOCTTY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    const stats = fstatSync(fd);
    if (!stats.isCharacterDevice()) return { ok: false, detail: `${path} is not a character device` };
    const uid = process.getuid?.();
    if (uid !== undefined && stats.uid !== uid) return { ok: false, detail: `${path} belongs to uid ${stats.uid}, not to us` };
    const bytes = Buffer.from(data, "utf8");
    const written = writeSync(fd, bytes);
    return written === bytes.length ? { ok: true } : { ok: false, detail: `${path} took ${written} of ${bytes.length} bytes` };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      ok: false,
      detail: `${path}: ${code === "EAGAIN" ? "the terminal is not reading (output paused or full)" : (code ?? String(error))}`,
    };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
