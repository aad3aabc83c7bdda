#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch the base kernel: the newest Debian linux-source-7.3 (7.3.y) from
# trixie-backports, without touching the system's apt sources (apt runs with
# a source list and state directory of its own under the cache). Unpack it
# and turn it into a git tree with a single base commit. Records the exact
# version and the .deb's sha256 in $TAS_CACHE/base.info.
set -euo pipefail

. "$(dirname "$0")/env.sh"

log() { printf 'fetch-base: %s\n' "$*"; }

if [ -f "$TAS_CACHE/base.info" ] && git -C "$TAS_BASE" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	cat "$TAS_CACHE/base.info"
	exit 0
fi

apt_dir=$TAS_CACHE/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$apt_dir/etc"
cat >"$apt_dir/etc/sources.list" <<EOS
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie-backports main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main
EOS
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/etc/sources.list"
	-o "Dir::Etc::SourceParts=$apt_dir/etc/none.d"
	-o "Dir::State::Lists=$apt_dir/lists"
	-o "Dir::State::Status=$apt_dir/status"
	-o "Dir::Cache=$apt_dir/cache"
	-o "Dir::Cache::archives=$apt_dir/archives"
	-o "APT::Architecture=amd64"
	-o "Debug::NoLocking=1"
	-o "APT::Sandbox::User=root")
mkdir -p "$apt_dir/etc/none.d" "$apt_dir/cache"
touch "$apt_dir/status"

log "refreshing a private package list (trixie-backports)"
apt-get "${apt_opts[@]}" update -qq

version=$(apt-cache "${apt_opts[@]}" madison linux-source-7.3 |
	awk -F'|' '{gsub(/ /, "", $2); print $2}' | sort -V | tail -n 1)
[ -n "$version" ] || { log "no linux-source-7.3 package found"; exit 1; }
log "newest linux-source-7.3: $version"

deb_dir=$TAS_CACHE/deb
mkdir -p "$deb_dir"
deb=$(ls "$deb_dir"/linux-source-7.3_"${version//:/%3a}"_all.deb 2>/dev/null || true)
if [ -z "$deb" ]; then
	(cd "$deb_dir" && apt-get "${apt_opts[@]}" download "linux-source-7.3=$version")
	deb=$(ls "$deb_dir"/linux-source-7.3_*_all.deb | sort -V | tail -n 1)
fi
sha=$(sha256sum "$deb" | cut -d' ' -f1)
log "$deb sha256 $sha"

rm -rf "$TAS_CACHE/unpack" "$TAS_BASE"
mkdir -p "$TAS_CACHE/unpack"
dpkg -x "$deb" "$TAS_CACHE/unpack"
tarball=$(ls "$TAS_CACHE"/unpack/usr/src/linux-source-7.3*.tar.xz)
mkdir -p "$TAS_BASE"
tar -C "$TAS_BASE" --strip-components=1 -xf "$tarball"
rm -rf "$TAS_CACHE/unpack"

# Debian appends a block to .gitignore that makes git ignore every top-level
# path; drop it so the tree can be tracked.
python3 - "$TAS_BASE/.gitignore" <<'EOP'
import sys
p = sys.argv[1]
s = open(p).read()
i = s.find("# Debian packaging")
if i >= 0:
    open(p, "w").write(s[:i].rstrip("\n") + "\n")
EOP

kver=$(make -s -C "$TAS_BASE" kernelversion)
(
	cd "$TAS_BASE"
	git init -q -b base
	# The tarball holds sources only; upstream tracks files its .gitignore
	# matches (.rustfmt.toml, .clang-format, ...), so add everything.
	git add -A --force
	GIT_AUTHOR_NAME="TAS base" GIT_AUTHOR_EMAIL="tas@localhost" \
	GIT_COMMITTER_NAME="TAS base" GIT_COMMITTER_EMAIL="tas@localhost" \
	GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z" \
		git -c core.autocrlf=false commit -q -m "Linux $kver (Debian linux-source-7.3 $version)"
)

cat >"$TAS_CACHE/base.info" <<EOI
base_kernel=$kver
base_debian_package=linux-source-7.3
base_debian_version=$version
base_deb_sha256=$sha
base_commit=$(git -C "$TAS_BASE" rev-parse HEAD)
EOI
cat "$TAS_CACHE/base.info"
