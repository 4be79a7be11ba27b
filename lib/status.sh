# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# status.sh - make status: where a tree stands with the kit's series: each
# applied patch and topic from the kit's state (state.sh), or what the
# tree's plan would apply; read under a shared lock in the frame of
# apply.sh's apply_frame.  Exit codes: 0 applied, 2 not applied, 3 partial,
# 1 interrupted or stuck (the next apply/unapply recovers it); a tree
# whose patched files are their originals again (reverted by hand) is
# not applied (2) or, when only some are, partial (3).
kit_use tables trees state plan results apply

# status_run: make status of the request's tree (apply.sh apply_frame)
status_run() {
	apply_frame status
}

status_body() {
	local p v d missing states reverted
	if state_in_txn; then
		apply_say "interrupted $(state_txn) (run make apply or make unapply to recover)"
		return "$EXIT_ERROR"
	fi
	if [ -n "$(state_tombstones)" ]; then
		apply_say "interrupted while removing the kit's state ($(state_tombstones | paste -sd' ')); run make apply or make unapply to finish it"
		return "$EXIT_ERROR"
	fi
	if [ -n "$(state_problem)" ]; then
		apply_say "stuck: $TREE was $(state_problem)"
		return "$EXIT_ERROR"
	fi
	if state_is_applied; then
		states=$(state_file_states)
		reverted=$(sed -n 's/^original\t//p' <<< "$states")
		if [ -n "$reverted" ] && ! grep -qE '^(applied|changed)' <<< "$states"; then
			printf 'not applied: every file the series changed is its original again (taken out by hand: git checkout?); the kit state in %s is stale (make apply drops it and applies again, make unapply drops it)\n' "$TREE/$STATE_NAME"
			return "$EXIT_NOTHING"
		fi
		[ "$(applied_profile "$TREE")" = default ] || apply_say "profile $(applied_profile "$TREE")"
		for p in $(series_patches "$DATA_DIR/series"); do
			[ -z "$(result_get "$STATE_RECORDS" patch "$p" status)" ] ||
				printf '%-64s %s\n' "$p" "$(result_get "$STATE_RECORDS" patch "$p" text)"
		done
		APPLY_ERR=1 apply_topic_lines "$STATE_RECORDS"
		while IFS=$'\t' read -r v p; do
			[ "$v" != changed ] || printf 'warning: %s changed after the series was applied\n' "$p"
		done <<< "$states"
		if [ -n "$reverted" ]; then
			printf 'partial: back to their original (their patches are not in the tree): %s; make unapply takes out the rest\n' "$(paste -sd' ' <<< "$reverted")"
			return "$EXIT_PARTIAL"
		fi
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

