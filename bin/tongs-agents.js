#!/usr/bin/env node
// CommonJS (bin/package.json): Node starts a CommonJS entry without its ES module loader, which the CLI's start-up
// (`status` in a status line, the picker's first screen) would otherwise pay for on every run.
"use strict";
if (Number(process.versions.node.split(".")[0]) < 22) {
  process.stderr.write(`tongs-agents needs Node.js 22 or newer; ${process.execPath} is ${process.version}.\n`);
  process.exit(1);
}
// A keypress server, when one runs, answers the short verbs (docs/server.md); otherwise the CLI runs here.
require("../dist/cli/client.cjs").main(() => require("../dist/cli/main.cjs"));
