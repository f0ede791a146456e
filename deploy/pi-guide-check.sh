#!/usr/bin/env bash
# Follows docs/install-pi.md literally in a clean Debian 12 chroot, up to the trial run
# (a simulated game through `kaeshi run` as the service user). See the guide's last section.
#
#   sudo apt-get install debootstrap
#   sudo deploy/pi-guide-check.sh [WORK_DIR]       (default /var/tmp/kaeshi-guide)
#
# The first run makes a Debian 12 base with debootstrap and keeps it as a tar in WORK_DIR;
# every run unpacks it afresh, so each check starts clean. The repository's committed HEAD
# stands for the guide's <repository>. Needs network to deb.debian.org and PyPI.
# GUIDE_ARCH=arm64 makes the chroot a Pi's architecture (Raspberry Pi OS 64-bit is Debian
# 12 arm64), so the [pi] extra and lgpio's wheel are installed for real; that needs
# qemu-user-static registered with binfmt_misc, and is many times slower.
# Behind a proxy that re-signs TLS, GUIDE_CA_BUNDLE=FILE (a PEM bundle) is given to the
# chroot's pip through /etc/pip.conf, as a site's admin would set it up.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/var/tmp/kaeshi-guide}
suite=bookworm
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
arch=${GUIDE_ARCH:-$(dpkg --print-architecture)}
root="$work/root"

[ "$(id -u)" = 0 ] || { echo "pi-guide-check: run as root (debootstrap, chroot)" >&2; exit 2; }
command -v debootstrap >/dev/null || {
    echo "pi-guide-check: needs debootstrap (apt-get install debootstrap)" >&2; exit 2; }
mkdir -p "$work"

unmount() {
    for m in dev/pts dev proc sys; do
        mountpoint -q "$root/$m" 2>/dev/null && umount -l "$root/$m" || true
    done
}
trap unmount EXIT

base="$work/base-$suite-$arch.tar"
if [ ! -f "$base" ]; then
    echo "== debootstrap $suite ($arch) into $work/base (once)"
    rm -rf "$work/base"
    debootstrap --variant=minbase --arch="$arch" "$suite" "$work/base" "$mirror" \
        >"$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
    tar -C "$work/base" -cf "$base.part" . && mv "$base.part" "$base"
    rm -rf "$work/base"
fi

echo "== a clean chroot in $root"
unmount
rm -rf "$root"
mkdir -p "$root"
tar -C "$root" -xf "$base"
cp /etc/resolv.conf "$root/etc/resolv.conf"
echo "127.0.1.1 $(hostname)" >>"$root/etc/hosts"  # as Raspberry Pi OS has it, for sudo
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"

in_root() { chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
    DEBIAN_FRONTEND=noninteractive PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    "$@"; }

echo "== what Raspberry Pi OS has and a Debian base lacks: sudo, the gpio and spi groups, a hosts entry"
in_root apt-get update -qq
in_root apt-get install -y -qq sudo >/dev/null
in_root groupadd --system gpio
in_root groupadd --system spi

if [ -n "${GUIDE_CA_BUNDLE:-}" ]; then
    echo "== this site's TLS bundle for pip: $GUIDE_CA_BUNDLE"
    mkdir -p "$root/etc/ssl"
    cp "$GUIDE_CA_BUNDLE" "$root/etc/ssl/site-ca-bundle.pem"
    printf '[global]\ncert = /etc/ssl/site-ca-bundle.pem\n' >"$root/etc/pip.conf"
fi

echo "== the repository's HEAD ($(git -C "$repo" rev-parse --short HEAD)) as <repository>"
git clone -q --bare "$repo" "$root/srv/kaeshi.git"

echo "== the guide's steps, as written at that commit"
git -C "$repo" show HEAD:docs/install-pi.md >"$work/install-pi.md"
python3 - "$work/install-pi.md" "$root/root/guide.sh" <<'EOF'
"""Every sh block of the guide's install section, in order; marked blocks are skipped."""
import re
import shlex
import sys

text = open(sys.argv[1], encoding="utf-8").read()
section = text.split("## Installing on Raspberry Pi OS", 1)[1].split("\n## ", 1)[0]
out = ["set -euxo pipefail", "cd /root"]
skip = None
lines = section.splitlines()
i = 0
while i < len(lines):
    line = lines[i].strip()
    marker = re.match(r"<!-- guide-check: skip \((.+)\) -->", line)
    if marker:
        skip = marker.group(1)
    elif line == "```sh":
        indent = len(lines[i]) - len(lines[i].lstrip())
        block = []
        i += 1
        while lines[i].strip() != "```":
            block.append(lines[i][indent:])
            i += 1
        if skip:
            out.append("echo " + shlex.quote(f"-- skipped ({skip}):"))
            out += ["echo " + shlex.quote(f"   {b}") for b in block]
        else:
            out += [b.replace("<repository>", "/srv/kaeshi.git") for b in block]
        skip = None
    elif line:
        skip = skip if line.startswith("<!--") else None
    i += 1
open(sys.argv[2], "w", encoding="utf-8").write("\n".join(out) + "\n")
EOF
sed 's/^/   | /' "$root/root/guide.sh"
started=$(date +%s)
set +e
in_root /bin/bash /root/guide.sh >"$work/guide.log" 2>&1
rc=$?
set -e
echo "== the guide ran for $(( $(date +%s) - started )) s, exit $rc (log: $work/guide.log)"
tail -25 "$work/guide.log" | sed 's/^/   | /'
[ "$rc" = 0 ] || { echo "pi-guide-check: FAILED: a step of the guide failed" >&2; exit 1; }

records=$(find "$root/var/lib/kaeshi/trial/games" -name '*.json' 2>/dev/null | wc -l)
owner=$(stat -c %U "$root/var/lib/kaeshi/trial/journal.sqlite" 2>/dev/null || echo none)
if [ "$records" -ge 1 ] && [ "$(in_root id -u kaeshi)" = "$(stat -c %u "$root/var/lib/kaeshi/trial/journal.sqlite")" ]; then
    echo "pi-guide-check: ok: the trial game was recorded by the kaeshi user ($records record)"
else
    echo "pi-guide-check: FAILED: no trial record written by kaeshi (records: $records, journal owner: $owner)" >&2
    exit 1
fi
