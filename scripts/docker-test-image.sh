#!/usr/bin/env bash
# Builds the container image the docker end-to-end test runs workspaces in, from files of this
# machine only (no registry): busybox-static for /bin/sh and the usual commands, plus the shared
# libraries that `ldd` names for node and the native addons (the single executable is this node
# binary with the bundle injected, so it needs the same ones), imported with `docker import`.
#
# Usage: scripts/docker-test-image.sh [image]   (default: cove-test-busybox:latest)
set -euo pipefail
cd "$(dirname "$0")/.."
image="${1:-cove-test-busybox:latest}"

busybox=$(command -v busybox || true)
if [ -z "$busybox" ] || ldd "$busybox" >/dev/null 2>&1; then
  echo "docker-test-image: needs a static busybox (apt-get install busybox-static)" >&2
  exit 1
fi

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/etc" "$root/root" "$root/home" "$root/tmp" "$root/proc" "$root/sys" "$root/dev"
chmod 1777 "$root/tmp"
cp "$busybox" "$root/bin/busybox"
for applet in $("$busybox" --list); do
  [ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done

binaries=("$(command -v node)")
for addon in node_modules/better-sqlite3/build/Release/better_sqlite3.node node_modules/node-pty/build/Release/pty.node \
  node_modules/@napi-rs/keyring-linux-*/keyring.*.node node_modules/bufferutil/prebuilds/linux-*/bufferutil.node; do
  [ -e "$addon" ] && binaries+=("$addon")
done
# ldd prints `name => /path (addr)` for libraries and `/path (addr)` for the loader.
for lib in $(ldd "${binaries[@]}" 2>/dev/null | grep -o '/[^ ]*\.so[^ ]*' | sort -u); do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done

printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"

tar -C "$root" -c . | docker import --change 'CMD ["/bin/sh"]' - "$image" >/dev/null
echo "docker-test-image: built $image ($(du -sh "$root" | cut -f1))"
