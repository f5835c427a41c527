#!/usr/bin/env bash
# Makes this machine able to build and run ./Dockerfile with no Docker engine and no Docker Hub: podman from
# Debian, set up for this kind of VM, and the Dockerfile's base images made locally. `make container-test`
# runs it first. Needs root (CI runs as root). Safe to repeat: the first run takes about a minute, later ones
# a few seconds.
#
# The local base image is Debian bookworm (minbase) with Debian's python3 (3.11, /usr/bin/python3) and
# python3-venv: no `python` command, and pip only inside a venv, which is why the Dockerfile makes its venv
# with `python3 -m venv`. It is tagged with every name the Dockerfile's FROM lines use.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
BASE=localhost/gemini-emulator-base:bookworm
log() { printf '[container-env] %s\n' "$*"; }

[ "$(id -u)" = 0 ] || { echo "container-env: run as root (podman here is rootful)" >&2; exit 1; }

missing=()
for tool in podman runc debootstrap; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]} from Debian"
  apt-get update -qq
  apt-get install -y -qq podman runc debootstrap >/dev/null
fi

# Two limits of this VM: no CAP_SYS_RESOURCE, so a container's rlimits may not exceed the host's hard limits
# (podman's defaults do); and hybrid cgroups, which crun refuses, so runc with the cgroupfs manager.
cap() { if [ "$1" = unlimited ] || [ "$1" -gt "$2" ]; then echo "$2"; else echo "$1"; fi; }
nofile=$(cap "$(ulimit -Hn)" 1048576)
nproc=$(cap "$(ulimit -Hu)" 32768)
conf=$(printf '%s\n' \
  '# Written by gemini-emulator tools/container-env.sh' \
  '[containers]' \
  "default_ulimits = [\"nofile=$nofile:$nofile\", \"nproc=$nproc:$nproc\"]" \
  '[engine]' \
  'runtime = "runc"' \
  'cgroup_manager = "cgroupfs"' \
  'events_logger = "file"')
mkdir -p /etc/containers
if [ "$(cat /etc/containers/containers.conf 2>/dev/null)" != "$conf" ]; then
  log "writing /etc/containers/containers.conf (runc, cgroupfs, ulimits nofile=$nofile nproc=$nproc)"
  printf '%s\n' "$conf" >/etc/containers/containers.conf
fi

if ! podman image exists "$BASE"; then
  log "making the base image $BASE with debootstrap (about 45 s)"
  root=$(mktemp -d)
  trap 'rm -rf "$root"' EXIT
  if ! debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates bookworm "$root" \
    >"$root.log" 2>&1; then
    tail -20 "$root.log" >&2
    echo "container-env: debootstrap failed (whole log: $root.log)" >&2
    exit 1
  fi
  rm -f "$root.log"
  # The host may reach the package registries through a proxy that re-signs HTTPS with a local CA: the
  # image trusts what the host trusts, or pip inside the build cannot install anything.
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/" 2>/dev/null || true
  chroot "$root" update-ca-certificates >/dev/null 2>&1
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  tar -C "$root" -c . | podman import --quiet --change 'CMD ["/bin/bash"]' - "$BASE" >/dev/null
fi

# Each base the Dockerfile names (not its own stages), as the fully qualified name podman resolves it to.
stages=$(awk 'toupper($1) == "FROM" && toupper($3) == "AS" { print $4 }' Dockerfile)
for image in $(awk 'toupper($1) == "FROM" { print $2 }' Dockerfile | sort -u); do
  grep -qxF "$image" <<<"$stages" && continue
  case "$image" in
    */*/*) name=$image ;;
    */*) name=docker.io/$image ;;
    *) name=docker.io/library/$image ;;
  esac
  if ! podman image exists "$name"; then
    log "tagging $BASE as $name"
    podman tag "$BASE" "$name"
  fi
done
log "ready: $(podman info --format 'runtime {{.Host.OCIRuntime.Name}}, storage {{.Store.GraphDriverName}}')"
