#!/usr/bin/env node
if (Number(process.versions.node.split(".")[0]) < 22) {
  process.stderr.write(`tongs-agents needs Node.js 22 or newer; ${process.execPath} is ${process.version}.\n`);
  process.exit(1);
}
await import("../dist/cli/main.js");
