#!/usr/bin/env bash
# Rootless Podman for the e2e suites, on the project's machines: Debian 12, root, no systemd/logind, hybrid cgroups,
# no container registry. Every step checks before it acts, so `setup` twice does nothing the second time.
# Each workaround is explained in docs/containers.md ("Pitfalls"); shared/facts/containers.md has the observations.
#
#   bash containers/podman.sh setup      packages, user, configs, /dev/net/tun, the Docker-compatible API socket
#   bash containers/podman.sh env        the environment the suites need (DOCKER_HOST, testcontainers settings)
#   bash containers/podman.sh status     is the API socket answering?
#   bash containers/podman.sh teardown   stop the API service, remove leftover containers
#   bash containers/podman.sh purge      teardown, then remove every image and the e2e build cache (a bare state)
#   bash containers/podman.sh podman ARGS...   run podman as the user (for poking around by hand)
set -euo pipefail
# Everything below runs from /, never from the caller's directory: the podman user may not enter it (a clone in a 0700
# directory, or anywhere under /root), and podman's rootless re-exec then fails with "cannot chdir to <dir>".
SELF="$(realpath "$0")"
cd /

PODMAN_USER="${TONGS_E2E_PODMAN_USER:-tongs-e2e}"
PACKAGES=(podman runc uidmap slirp4netns debootstrap catatonit netavark aardvark-dns conmon iptables)
CACHE_DIR="${TONGS_AGENTS_E2E_CACHE:-/root/.cache/tongs-agents/e2e}"

log() { printf 'podman.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

user_uid() { id -u "$PODMAN_USER" 2>/dev/null; }
runtime_dir() { printf '/run/user/%s' "$(user_uid)"; }
socket_path() { printf '%s/podman/podman.sock' "$(runtime_dir)"; }
state_dir() { printf '%s/tongs-e2e' "$(runtime_dir)"; }
user_home() { getent passwd "$PODMAN_USER" | cut -d: -f6; }

# Every podman call as the user passes XDG_RUNTIME_DIR, from the very first one: podman records its runtime paths in
# its database at first use, and /run/user/<uid> is not created for us (no logind).
user_prefix() {
  USER_PREFIX=(setpriv --reuid="$(user_uid)" --regid="$(id -g "$PODMAN_USER")" --init-groups
    env -i HOME="$(user_home)" USER="$PODMAN_USER" LOGNAME="$PODMAN_USER" XDG_RUNTIME_DIR="$(runtime_dir)"
    PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin)
}
as_user() {
  user_prefix
  "${USER_PREFIX[@]}" "$@"
}

# Write a file only when its content differs; report whether it changed.
put_file() {
  local path="$1" owner="$2" mode="$3" content="$4"
  if [[ -f "$path" ]] && [[ "$(cat "$path")" == "$content" ]]; then return 0; fi
  install -d -o "$owner" -g "$owner" "$(dirname "$path")"
  printf '%s\n' "$content" >"$path.tmp.$$"
  chown "$owner:$owner" "$path.tmp.$$"
  chmod "$mode" "$path.tmp.$$"
  mv -f "$path.tmp.$$" "$path"
  log "wrote $path"
}

ensure_packages() {
  local missing=()
  for pkg in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$pkg")
  done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  log "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # The package lists may be missing or old on a new machine.
  apt-get update -q >/dev/null || apt-get update -q
  apt-get install -y -q --no-install-recommends "${PACKAGES[@]}" >/dev/null
}

ensure_user() {
  if ! id "$PODMAN_USER" >/dev/null 2>&1; then
    log "creating user $PODMAN_USER"
    useradd --create-home --shell /usr/sbin/nologin "$PODMAN_USER"
  fi
  # Debian's useradd writes subordinate id ranges itself (login.defs SUB_UID_*); a user made elsewhere may lack them.
  if ! grep -q "^$PODMAN_USER:" /etc/subuid || ! grep -q "^$PODMAN_USER:" /etc/subgid; then
    local start=$((200000 + 65536 * $(user_uid)))
    log "adding subordinate ids $start-$((start + 65535)) for $PODMAN_USER"
    usermod --add-subuids "$start-$((start + 65535))" --add-subgids "$start-$((start + 65535))" "$PODMAN_USER"
  fi
}

ensure_runtime_dir() {
  local dir uid
  dir="$(runtime_dir)"
  uid="$(user_uid)"
  if [[ ! -d "$dir" ]] || [[ "$(stat -c '%u %a' "$dir")" != "$uid 700" ]]; then
    log "creating $dir"
    install -d -m 0700 -o "$PODMAN_USER" -g "$PODMAN_USER" "$dir"
  fi
}

ensure_configs() {
  local home uid
  home="$(user_home)"
  uid="$(user_uid)"
  # overlay explicitly: without it rootless podman silently falls back to vfs, copying the whole image per container.
  put_file "$home/.config/containers/storage.conf" "$PODMAN_USER" 0644 "# Written by tongs-agents containers/podman.sh
[storage]
driver = \"overlay\"
runroot = \"/run/user/$uid/containers\"
graphroot = \"$home/.local/share/containers/storage\""
  # runc: crun 1.8 refuses hybrid cgroups. cgroupfs and the file events logger: there is no systemd or journald.
  # exit_command_delay: otherwise a conmon lingers 300 s after every exec.
  put_file "$home/.config/containers/containers.conf" "$PODMAN_USER" 0644 "# Written by tongs-agents containers/podman.sh
[engine]
runtime = \"runc\"
cgroup_manager = \"cgroupfs\"
events_logger = \"file\"
exit_command_delay = 10

[network]
network_backend = \"netavark\""
  # No registry is reachable: block pulls so a missing image fails at once instead of retrying for minutes.
  put_file "$home/.config/containers/registries.conf" "$PODMAN_USER" 0644 "# Written by tongs-agents containers/podman.sh
unqualified-search-registries = []

[[registry]]
location = \"docker.io\"
blocked = true

[[registry]]
location = \"quay.io\"
blocked = true

[[registry]]
location = \"ghcr.io\"
blocked = true"
}

ensure_tun() {
  # slirp4netns opens /dev/net/tun as the user: `open("/dev/net/tun"): Permission denied` otherwise.
  if [[ ! -e /dev/net/tun ]]; then
    log "creating /dev/net/tun"
    install -d /dev/net
    mknod -m 0666 /dev/net/tun c 10 200
  fi
  if [[ "$(stat -c '%a' /dev/net/tun)" != "666" ]]; then
    log "chmod 0666 /dev/net/tun"
    chmod 0666 /dev/net/tun
  fi
}

service_pid() {
  local pidfile pid
  pidfile="$(state_dir)/service.pid"
  [[ -f "$pidfile" ]] || return 1
  pid="$(cat "$pidfile")"
  # Only a live podman process that we recorded counts; a reused PID does not.
  [[ -n "$pid" ]] && [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == "podman" ]] || return 1
  printf '%s' "$pid"
}

socket_answers() {
  local sock
  sock="$(socket_path)"
  [[ -S "$sock" ]] && curl -fsS --max-time 5 --unix-socket "$sock" http://d/_ping >/dev/null 2>&1
}

# Rootless podman keeps a pause process holding its user namespace and marks the runtime dir "alive". When every
# process is killed without a reboot (a restarted sandbox keeps /run/user), the mark stays and the pause process is
# gone: every podman call then fails with "invalid internal status ... podman system migrate". Migrate, as it says.
ensure_namespace() {
  local err
  if err="$(as_user podman info --format '{{.Host.OS}}' 2>&1 >/dev/null)"; then return 0; fi
  if [[ "$err" == *"podman system migrate"* ]]; then
    log "podman's pause process is gone (processes killed without a reboot); running podman system migrate"
    as_user podman system migrate >/dev/null 2>&1 || true
    err="$(as_user podman info --format '{{.Host.OS}}' 2>&1 >/dev/null)" && return 0
  fi
  printf '%s\n' "$err" >&2
  die "podman does not run as $PODMAN_USER (see above)"
}

ensure_service() {
  if service_pid >/dev/null && socket_answers; then return 0; fi
  ensure_namespace
  if pid="$(service_pid)"; then
    log "service $pid is not answering; restarting it"
    kill "$pid" 2>/dev/null || true
  fi
  local state sock
  state="$(state_dir)"
  sock="$(socket_path)"
  install -d -m 0700 -o "$PODMAN_USER" -g "$PODMAN_USER" "$state" "$(dirname "$sock")"
  log "starting podman system service on $sock"
  # setsid: the service outlives this script. setpriv execs podman itself, so the recorded PID is the service's.
  user_prefix
  setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' _ "$state/service.pid" \
    "${USER_PREFIX[@]}" podman system service --time=0 "unix://$sock" </dev/null >>"$state/service.log" 2>&1 &
  for _ in $(seq 1 100); do
    socket_answers && { log "service up (pid $(cat "$state/service.pid"))"; return 0; }
    sleep 0.1
  done
  tail -n 20 "$state/service.log" >&2 || true
  die "the podman API socket $sock did not answer within 10 s (log: $state/service.log)"
}

print_env() {
  id "$PODMAN_USER" >/dev/null 2>&1 || die "user $PODMAN_USER does not exist: run 'bash containers/podman.sh setup' first"
  # Ryuk (testcontainers' reaper) is an image that cannot be pulled here; the suites stop their own containers.
  # HOST_OVERRIDE: this machine has /.dockerenv, so testcontainers would otherwise look for a bridge gateway.
  printf 'export DOCKER_HOST=unix://%s\n' "$(socket_path)"
  printf 'export TESTCONTAINERS_RYUK_DISABLED=true\n'
  printf 'export TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1\n'
  printf 'export TONGS_AGENTS_E2E_CACHE=%s\n' "$CACHE_DIR"
}

teardown() {
  id "$PODMAN_USER" >/dev/null 2>&1 || { log "user $PODMAN_USER does not exist: nothing to tear down"; return 0; }
  if [[ -d "$(runtime_dir)" ]] && command -v podman >/dev/null; then
    local leftover
    leftover="$(as_user podman ps -aq)"
    if [[ -n "$leftover" ]]; then
      log "removing leftover containers: $(echo "$leftover" | tr '\n' ' ')"
      as_user podman rm --force --time 0 $leftover >/dev/null
    fi
  fi
  if pid="$(service_pid)"; then
    log "stopping service $pid"
    kill "$pid"
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -f "$(state_dir)/service.pid"
}

purge() {
  teardown
  if id "$PODMAN_USER" >/dev/null 2>&1 && command -v podman >/dev/null && [[ -d "$(runtime_dir)" ]]; then
    log "removing all images of $PODMAN_USER"
    as_user podman rmi --all --force >/dev/null || true
  fi
  log "removing $CACHE_DIR"
  rm -rf "$CACHE_DIR"
}

[[ $# -ge 1 ]] || { sed -n '2,12p' "$SELF" >&2; exit 2; }
command="$1"
shift
case "$command" in
  setup)
    [[ $(id -u) -eq 0 ]] || die "setup needs root (packages, a user, /dev/net/tun)"
    ensure_packages
    ensure_user
    ensure_runtime_dir
    ensure_configs
    ensure_tun
    ensure_service
    ;;
  env) print_env ;;
  status)
    socket_answers && { log "API socket answers at $(socket_path)"; exit 0; }
    log "API socket not answering at $(socket_path 2>/dev/null || echo '(no user)')"
    exit 1
    ;;
  teardown) teardown ;;
  purge) purge ;;
  podman) as_user podman "$@" ;;
  *) die "unknown command '$command' (setup, env, status, teardown, purge, podman)" ;;
esac
