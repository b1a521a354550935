#!/usr/bin/env node
// tongs-agents-hook-worker: started detached by bin/tongs-agents-hook.sh with the event it spooled; applies it and
// exits. Never run by a harness directly. Like the hook, it does nothing on an unsupported Node.
if (Number(process.versions.node.split(".")[0]) < 22) process.exit(0);
require("../dist/hook-worker.cjs");
