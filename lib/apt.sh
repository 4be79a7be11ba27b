# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# apt.sh - apt on a private state dir in the kit's cache: the Debian trees
# (fetch.sh) and source packages the kit builds itself.  The mirror is the
# machine's own: it is read from /etc/apt, never written here.

APT_DIR=$CACHE_DIR/apt

# machine_mirror KIND -> base URI of the machine's Debian mirror (main|security),
# read from its own apt sources (one-line and deb822 formats).
machine_mirror() {
	local kind=$1 f files=()
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && [ -r "$f" ] && files+=("$f")
	done
	[ ${#files[@]} -gt 0 ] || return 0
	# awk reads the files itself: no pipe, so its early exit cannot
	# fail a writer under pipefail
	awk -v kind="$kind" '
		function emit(uri, suites,   n, i, s) {
			if (found)
				return
			n = split(suites, s, /[ \t]+/)
			for (i = 1; i <= n; i++) {
				if (s[i] !~ /^(bullseye|bookworm|trixie|forky|sid|unstable|stable|testing|oldstable)(-security|-updates)?(\/updates)?$/)
					continue
				if ((kind == "security") == (s[i] ~ /security/)) { print uri; found = 1; return }
			}
		}
		FNR == 1   { if (uri != "" && suites != "") emit(uri, suites); uri = suites = "" }
		/^[ \t]*#/ { next }
		/^deb[ \t]/ {
			sub(/^deb[ \t]+(\[[^]]*\][ \t]+)?/, "")
			uri = $1; $1 = ""; emit(uri, $0); next
		}
		/^URIs:/   { uri = $2 }
		/^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0 }
		/^$/       { if (uri != "" && suites != "") emit(uri, suites); uri = suites = "" }
		END        { if (uri != "" && suites != "") emit(uri, suites) }
	' "${files[@]}"
}

write_apt_config() {
	local main sec keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	main=$(machine_mirror main)
	sec=$(machine_mirror security)
	[ -n "$main" ] || die "no Debian mirror found in /etc/apt/sources.list*; add one (deb URI bookworm main) and retry"
	[ -n "$sec" ] || sec=$main-security
	[ -f "$keyring" ] || die "$keyring missing; apt-get install debian-archive-keyring"
	mkdir -p "$APT_DIR/lists/partial" "$APT_DIR/archives/partial" "$APT_DIR/debs"
	: > "$APT_DIR/status"
	{
		printf 'deb [signed-by=%s] %s bullseye main\n' "$keyring" "$main"
		printf 'deb [signed-by=%s] %s sid main\n' "$keyring" "$main"
		printf 'deb-src [signed-by=%s] %s sid main\n' "$keyring" "$main"
		printf 'deb [signed-by=%s] %s bookworm-security main\n' "$keyring" "$sec"
	} > "$APT_DIR/sources.list.new"
	mv "$APT_DIR/sources.list.new" "$APT_DIR/sources.list"
}

# kit_apt TOOL ARGS: apt-get or apt-cache on the kit's private state
kit_apt() {
	local tool=$1
	shift
	"$tool" -q \
		-o Dir::Etc::SourceList="$APT_DIR/sources.list" \
		-o Dir::Etc::SourceParts=/nonexistent \
		-o Dir::State="$APT_DIR" \
		-o Dir::State::Lists="$APT_DIR/lists" \
		-o Dir::State::status="$APT_DIR/status" \
		-o Dir::Cache="$APT_DIR" \
		-o Dir::Cache::Archives="$APT_DIR/archives" \
		-o Debug::NoLocking=1 \
		-o APT::Sandbox::User="$(id -un)" \
		-o Acquire::Languages=none \
		-o APT::Architectures::=amd64 \
		-o Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled=false \
		"$@"
}

# lists are refreshed at most once a day
update_lists() {
	local stamp=$APT_DIR/lists/.updated
	if [ -f "$stamp" ] && grep -q deb-src "$APT_DIR/sources.list" 2>/dev/null && [ -z "$(find "$stamp" -mmin +1440)" ]; then
		return 0
	fi
	write_apt_config
	progress "apt: updating the kit's package lists (bullseye, bookworm-security, sid)"
	kit_apt apt-get update >&2 || die "apt-get update failed for the kit's private sources; check the machine's network and apt mirror"
	touch "$stamp"
}

