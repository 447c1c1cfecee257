#!/usr/bin/env bash
# Builds Cove's container image from files of this machine only, without pulling anything: a root
# holding the single executable as /usr/local/bin/cove, the shared C libraries it needs (as `ldd`
# names them, the dynamic loader included, and those of the native addons it unpacks at run time),
# the docker CLI (for templates with the docker compute, through a mounted engine socket), CA
# certificates, a `cove` user (uid and gid 1000) with a writable home and data directory, and
# /tmp; then `docker import` of that root with the image's settings.
#
# Usage: packaging/container-image.sh [--executable FILE] [--tag IMAGE] [--context DIR] [--no-import]
#   --executable FILE  the single executable to use (default: build one with scripts/package.mjs)
#   --tag IMAGE        the image's name (default: cove:latest)
#   --context DIR      assemble in DIR and keep it: DIR/rootfs (root's files) and DIR/cove-owned
#                      (the cove user's directories), the build context of packaging/Dockerfile
#   --no-import        assemble only (with --context)
#   --no-docker-cli    leave the docker CLI out
set -euo pipefail
cd "$(dirname "$0")/.."

executable=''
tag='cove:latest'
context=''
import=1
docker_cli=1
while [ "$#" -gt 0 ]; do
  case "$1" in
    --executable) executable=$2; shift 2 ;;
    --tag) tag=$2; shift 2 ;;
    --context) context=$2; shift 2 ;;
    --no-import) import=0; shift ;;
    --no-docker-cli) docker_cli=0; shift ;;
    *) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
if [ "$import" = 0 ] && [ -z "$context" ]; then
  echo "container-image: --no-import needs --context DIR" >&2
  exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "$executable" ]; then
  executable="$work/cove"
  COVE_PACKAGE_OUTPUT="$executable" node scripts/package.mjs
fi
[ -x "$executable" ] || { echo "container-image: $executable is not an executable file" >&2; exit 1; }
[ -n "$context" ] || context="$work/context"
rm -rf "$context/rootfs" "$context/cove-owned"
root="$context/rootfs"
owned="$context/cove-owned"
mkdir -p "$root"/{usr/local/bin,etc/ssl/certs,home,var/lib,tmp,proc,sys,dev} "$owned"/{home/cove,var/lib/cove}
chmod 1777 "$root/tmp"
chmod 0700 "$owned/var/lib/cove"
cp "$executable" "$root/usr/local/bin/cove"
chmod 0755 "$root/usr/local/bin/cove"

binaries=("$root/usr/local/bin/cove")
if [ "$docker_cli" = 1 ]; then
  docker_path=$(command -v docker) || { echo "container-image: no docker CLI to copy (or --no-docker-cli)" >&2; exit 1; }
  cp -L "$docker_path" "$root/usr/local/bin/docker"
  binaries+=("$root/usr/local/bin/docker")
fi
# The addons the executable writes to its cache directory and loads (scripts/package.mjs lists them).
for addon in node_modules/better-sqlite3/build/Release/better_sqlite3.node node_modules/node-pty/build/Release/pty.node \
  node_modules/@napi-rs/keyring-linux-*/keyring.*.node node_modules/bufferutil/prebuilds/linux-*/bufferutil.node; do
  [ -e "$addon" ] && binaries+=("$addon")
done
# ldd prints `name => /path (addr)` for a library and `/path (addr)` for the loader; a static
# binary (the docker CLI often is) prints neither.
for lib in $(ldd "${binaries[@]}" 2>/dev/null | grep -o '/[^ ]*\.so[^ ]*' | sort -u); do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done

certs=/etc/ssl/certs/ca-certificates.crt
[ -f "$certs" ] || { echo "container-image: $certs is missing (apt-get install ca-certificates)" >&2; exit 1; }
cp -L "$certs" "$root/etc/ssl/certs/ca-certificates.crt"
printf 'root:x:0:0:root:/root:/sbin/nologin\ncove:x:1000:1000:Cove:/home/cove:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n' \
  >"$root/etc/passwd"
printf 'root:x:0:\ncove:x:1000:\nnogroup:x:65534:\n' >"$root/etc/group"
printf 'hosts: files dns\n' >"$root/etc/nsswitch.conf"

if [ "$import" = 0 ]; then
  echo "container-image: assembled in $context: docker build -f packaging/Dockerfile -t $tag $context"
  exit 0
fi

# Everything root's but the home and data directories, without needing root to chown: the
# archive is written with those owners, then the two directories appended as the cove user's.
tar -C "$root" --numeric-owner --owner=0 --group=0 -cf "$work/root.tar" .
tar -C "$owned" --numeric-owner --owner=1000 --group=1000 --no-recursion -rf "$work/root.tar" ./home/cove ./var/lib/cove
docker import \
  --change 'ENTRYPOINT ["/usr/local/bin/cove"]' \
  --change 'CMD ["serve"]' \
  --change 'USER cove' \
  --change 'WORKDIR /home/cove' \
  --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin HOME=/home/cove COVE_DATA_DIR=/var/lib/cove COVE_HTTP_ADDRESS=0.0.0.0:3000 COVE_DOCKER_COPY_AGENT=1' \
  --change 'VOLUME /var/lib/cove' \
  --change 'EXPOSE 3000' \
  "$work/root.tar" "$tag" >/dev/null
echo "container-image: $tag ($(du -h "$work/root.tar" | cut -f1) uncompressed)"
