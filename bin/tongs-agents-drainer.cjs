#!/usr/bin/env node
// tongs-agents-drainer <state dir>: applies what the hook shim (bin/tongs-agents-hook.sh) queues, started by it on
// demand (src/hook/drainer-main.ts). Never run by a harness directly. Like the hook, it does nothing on an unsupported
// Node.
if (Number(process.versions.node.split(".")[0]) < 22) process.exit(0);
require("../dist/hook-drainer.cjs");
