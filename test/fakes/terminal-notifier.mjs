// A stateful fake of terminal-notifier (MOCKED: macOS cannot run here), modelled on its source (AppDelegate.m, 2.0):
// options are read through NSUserDefaults: `-key value` pairs, where a value that parses as a property list (starts
// with `(`, `{`, `<` or `"`) is read as one (here: refused), and one leading backslash is stripped from a string value.
// Without -message the message is read from stdin when stdin is not a terminal. Each notification is kept in the state
// (`notifications`), with the shell command -execute would run on a click; the test runs it as terminal-notifier
// does (`/bin/sh -c <command>`).
import { readFileSync } from "node:fs";
import { fail, loadState, logCall, saveState } from "./fake-state.mjs";

const argv = process.argv.slice(2);
logCall("terminal-notifier", argv);
const state = loadState("terminal-notifier");

const options = {};
for (let at = 0; at < argv.length; at += 2) {
  const key = argv[at];
  if (!key.startsWith("-")) fail(`fake terminal-notifier: ${JSON.stringify(key)} is not an option`);
  const value = argv[at + 1];
  if (value === undefined) fail(`fake terminal-notifier: ${key} has no value`);
  if (/^[({<"]/.test(value))
    fail(`fake terminal-notifier: the value of ${key} would be parsed as a property list: ${JSON.stringify(value)}`);
  options[key.slice(1)] = value.startsWith("\\") ? value.slice(1) : value;
}
let message = options.message;
if (message === undefined && !process.stdin.isTTY) message = readFileSync(0, "utf8");
if (message === undefined) fail("Usage: terminal-notifier -[message|list|remove] [VALUE|ID|ID] [options]");
state.notifications ??= [];
state.notifications.push({
  title: options.title ?? "Terminal",
  subtitle: options.subtitle,
  message,
  group: options.group,
  sound: options.sound,
  execute: options.execute,
});
saveState("terminal-notifier", state);
