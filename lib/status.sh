# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# status.sh - make status: where a tree stands with the kit's series: each
# applied patch and topic from the kit's state (state.sh), or what the
# tree's plan would apply; read under a shared lock in the frame of
# apply.sh's apply_frame.  Exit codes: 0 applied, 2 not applied, 3 partial,
# 1 interrupted or stuck (the next apply/unapply recovers it).
kit_use tables trees state plan results apply

# status_run: make status of the request's tree (apply.sh apply_frame)
status_run() {
	apply_frame status
}

status_body() {
	local p v d missing
	if [ -n "$(state_tombstones)" ] || state_in_txn; then
		apply_say "interrupted $(state_txn) (run make apply or make unapply to recover)"
		return "$EXIT_ERROR"
	fi
	if [ -n "$(state_problem)" ]; then
		apply_say "stuck: $TREE was $(state_problem)"
		return "$EXIT_ERROR"
	fi
	if state_is_applied; then
		[ "$(applied_profile "$TREE")" = default ] || apply_say "profile $(applied_profile "$TREE")"
		for p in $(series_patches "$DATA_DIR/series"); do
			[ -z "$(result_get "$STATE_RECORDS" patch "$p" status)" ] ||
				printf '%-64s %s\n' "$p" "$(result_get "$STATE_RECORDS" patch "$p" text)"
		done
		APPLY_ERR=1 apply_topic_lines "$STATE_RECORDS"
		p=$(state_changed_file)
		[ -z "$p" ] || printf 'warning: %s changed after the series was applied\n' "$p"
		missing=$(apply_missing)
		if [ -n "$missing" ]; then
			printf 'partial: not applied: %s\n' "$(cut -f1 <<< "$missing" | paste -sd' ')"
			return "$EXIT_PARTIAL"
		fi
		return 0
	fi
	while IFS=$'\t' read -r p v d; do
		case $v in
		carry) printf '%-64s not applied (from backports/%s)\n' "$p" "$d" ;;
		upstream) printf '%-64s already upstream: %s\n' "$p" "$d" ;;
		n/a) printf '%-64s not applicable: %s\n' "$p" "$d" ;;
		esac
	done < <(plan_tree "$TREE")
	return "$EXIT_NOTHING"
}

