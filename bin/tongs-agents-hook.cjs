#!/usr/bin/env node
// tongs-agents-hook: called by agent harnesses for every lifecycle event. On an unsupported Node it does nothing and
// exits 0: a hook must never break the agent that runs it (`tongs-agents doctor` reports the version problem).
if (Number(process.versions.node.split(".")[0]) < 22) process.exit(0);
// Claude Code's held PermissionRequest hook is a bundle of its own (docs/answer.md), so the fast hook loads nothing more.
require(process.argv[2] === "permission-hold" ? "../dist/claude-hold.cjs" : "../dist/hook.cjs");
