#!/usr/bin/env bash
# `npm test` (after its pretest, scripts/test-setup.sh): the static checks and every vitest project. With arguments
# (`npm test -- FILE...`): the static checks, then vitest with those arguments.
#
# The unit project runs first, the static checks beside it. Then three lanes side by side: two shards of the live
# project, and the container (e2e) project followed by the adversarial project. The live files spend much of their time
# waiting on real programs' screens and the synthetic provider, while the container suites keep both CPUs busy; the
# adversarial attacks (which load both cores on purpose) fill the CPU the live shards leave once the containers are done.
# They can share the machine because each sees only its own processes: the container suites' agents run in containers,
# and the live shards and the adversarial project each run in a PID namespace of their own (`unshare --pid
# --mount-proc`), so process discovery in one never lists an agent CLI or a stand-in another started (the host's process
# table shows every container's processes). Where no PID namespace can be made (not root), the projects run one after
# another: unit, adversarial, e2e, live.
# Each side's output is printed as it comes, each line marked with its project; each vitest run ends with its own
# timing table (test/timing-reporter.ts), and this script with the wall time of each phase.
set -uo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS

if (($# > 0)); then
  bash scripts/static-checks.sh || exit 1
  exec vitest run "$@"
fi

# The static checks run beside the unit project, niced (they use the CPU its files leave idle); their result is
# awaited before the live and container suites, which a failed check would only delay.
checks_log="$(mktemp)"
trap 'rm -f "$checks_log"' EXIT
nice -n 10 bash scripts/static-checks.sh >"$checks_log" 2>&1 &
checks=$!

phases=()
failed=()
phase() {
  local name="$1" began=$SECONDS status=0
  shift
  "$@" || status=$?
  phases+=("$(printf '%6d s  %s%s' $((SECONDS - began)) "$name" "$( ((status == 0)) || echo " (exit $status)")")")
  ((status == 0)) || failed+=("$name")
}

# Each line of a side's output, marked with its project, as it comes (sed -u: unbuffered).
marked() {
  local mark="$1"
  shift
  "$@" 2>&1 | sed -u "s|^|$mark |"
}

# A vitest run alone in a new PID namespace, with /proc mounted for it. bash is its PID 1, not vitest (no `exec` of the
# last command: the `exit` after it), so processes orphaned inside are reaped; when it ends, the kernel ends every
# process left in the namespace.
apart() {
  unshare --pid --fork --mount-proc bash -c 'vitest run "$@"; exit $?' vitest "$@"
}

# Two shards of the live files (vitest --shard: a share of its files, run one after another), each in its own
# namespace, beside the container suites and then the adversarial project (in a namespace of its own too).
LIVE_SHARDS=2
side_by_side() {
  local shard pids=() status=0 e2e=0 adversarial=0
  for ((shard = 1; shard <= LIVE_SHARDS; shard++)); do
    marked "[live $shard/$LIVE_SHARDS]" apart --project live --shard="$shard/$LIVE_SHARDS" &
    pids+=($!)
  done
  marked "[e2e]" vitest run --project e2e || e2e=$?
  echo "test: the container suites exited $e2e"
  ((e2e == 0)) || status=1
  marked "[adversarial]" apart --project adversarial || adversarial=$?
  echo "test: the adversarial project exited $adversarial"
  ((adversarial == 0)) || status=1
  for ((shard = 1; shard <= LIVE_SHARDS; shard++)); do
    local code=0
    wait "${pids[$((shard - 1))]}" || code=$?
    echo "test: live shard $shard/$LIVE_SHARDS exited $code"
    ((code == 0)) || status=1
  done
  return "$status"
}

phase "unit" vitest run --project unit
checks_status=0
wait "$checks" || checks_status=$?
cat "$checks_log" >&2
if ((checks_status != 0)); then
  echo "test: the static checks failed (above): the live and container suites were not run" >&2
  exit 1
fi
if [[ $(id -u) -eq 0 ]] && unshare --pid --fork --mount-proc true 2>/dev/null; then
  # The container image, built or confirmed before the live files start (the e2e global setup then takes it as given):
  # building packs the checkout, and `npm pack` rewrites package.json for a moment, which a live file's evidence would
  # record as uncommitted changes.
  image="$(eval "$(bash containers/podman.sh env)" && node containers/build-images.ts --agents all --extras all)" || {
    echo "test: the container image could not be built (above)" >&2
    exit 1
  }
  export TONGS_AGENTS_E2E_IMAGE="$image"
  phase "live beside e2e, adversarial" side_by_side
else
  echo "test: no PID namespace here (needs root): the adversarial, container and live projects run one after another" >&2
  phase "adversarial" vitest run --project adversarial
  phase "e2e" vitest run --project e2e
  phase "live" vitest run --project live
fi

echo "test: the phases, wall time:"
printf '  %s\n' "${phases[@]}"
echo "test: $((SECONDS - started)) s in all"
if ((${#failed[@]} > 0)); then
  echo "test: failed: ${failed[*]}" >&2
  exit 1
fi
