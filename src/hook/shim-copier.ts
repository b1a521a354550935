// How the hook shim copies a payload from stdin (bin/tongs-agents-hook.sh): `head -c` under `stdbuf -o0` (two programs
// started, one process), or `dd` alone where it takes a byte count (GNU dd's iflag=count_bytes, coreutils 8.16 and
// later), which writes each read at once without stdio's buffer: one program fewer per event. The shim cannot afford
// to ask dd on every event, so the drainer asks once when it starts and leaves a mark in the spool, which the shim
// tests with a shell builtin. Without the mark (the first events, an old or busybox dd) the shim uses head.
import { spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** In the spool dir: present when dd copies exactly the shim's way (the shim tests it with `[ -f ]`). */
export const DD_COPIER_MARK = ".copy-with-dd";
/** The shim's dd words but the count: the probe must run the command the shim will. */
const DD_WORDS = ["iflag=count_bytes", "bs=65536", "status=none"];

/** Ask dd (on this PATH, the one the shims that start this drainer run with) to copy 3 bytes of 6; mark the answer. */
export function markShimCopier(spoolDir: string): boolean {
  const probe = spawnSync("dd", [...DD_WORDS, "count=3"], { input: "abcdef", timeout: 5000, stdio: ["pipe", "pipe", "ignore"] });
  const copies = probe.status === 0 && probe.stdout?.toString("latin1") === "abc";
  const mark = join(spoolDir, DD_COPIER_MARK);
  try {
    if (copies) writeFileSync(mark, "", { mode: 0o600 });
    else rmSync(mark, { force: true });
  } catch {
    return false; // the shim goes on with head
  }
  return copies;
}
