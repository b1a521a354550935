// Stands in for graceful-fs inside the bundles (see scripts/build.mjs): plain fs.
module.exports = require("node:fs");
