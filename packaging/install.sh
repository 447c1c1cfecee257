#!/bin/sh
# Installs Cove's single executable, checked against its SHA-256, and optionally its systemd unit.
#
#   sh install.sh --url https://cove.example.com [--prefix /usr/local/bin] [--with-service]
#   sh install.sh --release-dir ./dist            (or an http(s) URL of such a directory)
#
# --url takes a deployment's access URL: the daemon serves its executables at
# /bin/cove-linux-<arch> and their checksums at /bin/SHA256SUMS. --release-dir takes a directory
# as `npm run package` leaves it (cove-linux-x64 or cove-linux-amd64, and SHA256SUMS).
# --with-service also installs cove.service (from next to this script or from the release
# directory) into --unit-dir (default /etc/systemd/system), pointing at the installed executable.
# Nothing is installed unless the checksum matches.
set -eu

usage() {
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

die() {
  printf 'install.sh: %s\n' "$*" >&2
  exit 1
}

url=''
release_dir=''
prefix='/usr/local/bin'
with_service=0
unit_dir='/etc/systemd/system'
arch=''
while [ "$#" -gt 0 ]; do
  case "$1" in
    --url) [ "$#" -ge 2 ] || usage; url=$2; shift 2 ;;
    --url=*) url=${1#*=}; shift ;;
    --release-dir) [ "$#" -ge 2 ] || usage; release_dir=$2; shift 2 ;;
    --release-dir=*) release_dir=${1#*=}; shift ;;
    --prefix) [ "$#" -ge 2 ] || usage; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#*=}; shift ;;
    --with-service) with_service=1; shift ;;
    --unit-dir) [ "$#" -ge 2 ] || usage; unit_dir=$2; shift 2 ;;
    --unit-dir=*) unit_dir=${1#*=}; shift ;;
    --arch) [ "$#" -ge 2 ] || usage; arch=$2; shift 2 ;;
    -h | --help) usage ;;
    *) printf 'install.sh: unknown argument %s\n' "$1" >&2; usage ;;
  esac
done
if [ -n "$url" ] && [ -n "$release_dir" ]; then die 'give --url or --release-dir, not both'; fi
if [ -z "$url" ] && [ -z "$release_dir" ]; then die 'give --url <access URL> or --release-dir <directory or URL>'; fi

if [ -z "$arch" ]; then
  machine=$(uname -m)
  case "$machine" in
    x86_64 | amd64) arch=amd64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) die "no Cove executable for this machine ($machine): only x86_64 and aarch64" ;;
  esac
fi
case "$arch" in
  amd64) node_arch=x64 ;;
  arm64) node_arch=arm64 ;;
  *) die "unknown architecture $arch (amd64 or arm64)" ;;
esac
[ "$(uname -s)" = Linux ] || die 'Cove runs on Linux only'
command -v sha256sum >/dev/null 2>&1 || die 'sha256sum is needed to check the download'

work=$(mktemp -d "${TMPDIR:-/tmp}/cove-install.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# fetch <source> <file>: copies a local path or downloads an http(s) URL; fails on a 4xx/5xx.
fetch() {
  case "$1" in
    http://* | https://*)
      if command -v curl >/dev/null 2>&1; then
        curl -fsSL --proto '=http,https' -o "$2" "$1"
      elif command -v wget >/dev/null 2>&1; then
        wget -q -O "$2" "$1"
      else
        die 'curl or wget is needed to download'
      fi
      ;;
    *) [ -f "$1" ] && cp "$1" "$2" ;;
  esac
}

if [ -n "$url" ]; then
  base="${url%/}/bin"
  names="cove-linux-$arch"
else
  base=${release_dir%/}
  # `npm run package` names the file after Node's architecture; a release may use Go's.
  names="cove-linux-$arch cove-linux-$node_arch"
fi

name=''
for candidate in $names; do
  if fetch "$base/$candidate" "$work/$candidate" 2>/dev/null; then
    name=$candidate
    break
  fi
done
[ -n "$name" ] || die "no cove-linux-$arch at $base"
fetch "$base/SHA256SUMS" "$work/SHA256SUMS" || die "no SHA256SUMS at $base: cannot check $name"

# The line for this file only (a name may be marked binary with '*').
awk -v n="$name" '$2 == n || $2 == "*" n { print $1 "  " n }' "$work/SHA256SUMS" >"$work/check"
[ -s "$work/check" ] || die "SHA256SUMS at $base has no line for $name"
if ! (cd "$work" && sha256sum -c --status check); then
  die "CHECKSUM MISMATCH: $name from $base does not match its SHA256SUMS line ($(cut -d' ' -f1 "$work/check")); nothing installed"
fi

mkdir -p "$prefix"
# A temporary name in the same directory, then a rename: a running cove keeps its file.
cp "$work/$name" "$prefix/.cove.install.$$"
chmod 0755 "$prefix/.cove.install.$$"
mv -f "$prefix/.cove.install.$$" "$prefix/cove"
printf 'installed %s (%s) as %s/cove\n' "$name" "$(cut -d' ' -f1 "$work/check")" "$prefix"

if [ "$with_service" = 1 ]; then
  unit=''
  here=$(dirname "$0")
  if [ -f "$here/cove.service" ]; then
    unit="$here/cove.service"
  elif fetch "$base/cove.service" "$work/cove.service" 2>/dev/null; then
    unit="$work/cove.service"
  fi
  [ -n "$unit" ] || die "--with-service: no cove.service next to $0 or in $base"
  mkdir -p "$unit_dir"
  sed "s#/usr/local/bin/cove#$prefix/cove#g" "$unit" >"$unit_dir/cove.service"
  chmod 0644 "$unit_dir/cove.service"
  printf 'installed %s/cove.service\n' "$unit_dir"
  if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    systemctl daemon-reload
  fi
  printf 'next: put settings (COVE_ACCESS_URL=..., COVE_HTTP_ADDRESS=...) in /etc/cove/cove.env, then\n  systemctl enable --now cove\n'
fi
