#!/usr/bin/env python3
# A minimal Python 3 standard-library hook, written for bench/hook-cost.mjs as the yardstick of a Python peer: read the
# event's JSON from stdin, walk /proc from the parent up to the agent process (named `claude`), and write one JSON file
# per session (atomically: temp file, then rename). Not a port of any project's hook; it does the least such a hook
# must do, so it measures Python's start-up plus that work.
import json
import os
import sys


def find_agent(pid, name="claude"):
    for _ in range(24):
        if pid <= 1:
            return None
        try:
            with open(f"/proc/{pid}/stat") as stat:
                line = stat.read()
        except OSError:
            return None
        comm = line[line.index("(") + 1 : line.rindex(")")]
        fields = line[line.rindex(")") + 2 :].split()
        if comm == name:
            return {"pid": pid, "start": fields[19]}
        pid = int(fields[1])
    return None


def main():
    try:
        event = json.load(sys.stdin)
        out_dir = sys.argv[1]
        record = {"session_id": event.get("session_id"), "event": event.get("hook_event_name"), "agent": find_agent(os.getppid())}
        path = os.path.join(out_dir, f"{event.get('session_id', 'unknown')}.json")
        with open(path + ".tmp", "w") as out:
            json.dump(record, out)
        os.replace(path + ".tmp", path)
    except Exception:
        pass


main()
