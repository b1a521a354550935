// Stands in for signal-exit inside the bundles (see scripts/build.mjs). proper-lockfile uses it to remove locks still
// held when the process exits; a hook holds a lock for milliseconds and releases it in `finally`. The real module
// installs a watcher for every catchable signal at load, a large share of a hook's start-up; this one only covers a
// normal exit (process.exit included). A lock left by a killed holder is taken over once stale (2 s).
module.exports = function onExit(callback) {
  process.once("exit", () => callback(0, null));
  return () => undefined;
};
