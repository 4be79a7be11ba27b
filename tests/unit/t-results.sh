# SPDX-License-Identifier: GPL-2.0
# tier: fast
# The one result model (mmbk/results.py) on canned records (tests/results/,
# README.md there): its KTAP parses with the kernel's kunit_parser with
# matching plans and the counts it states, its JUnit validates against the
# Jenkins JUnit schema (tests/junit) and says why a case failed, its JSON
# holds every record with typed fields (a round trip gives the records
# back), its Markdown has the matrix's rows; records that are not records
# are one-line errors.  Each check is also shown failing on a broken input.

RECORDS=$KIT_DIR/tests/results
XSD=$KIT_DIR/tests/junit/junit-10.xsd

results() {	# results CMD ARGS...
	kit_py results "$@"
}

# the KTAP of each record file and of all of them parses with kunit_parser
# (no complaint: every plan matches its results) with the counts the
# --summary line states, and results count says the same; a document with
# one result line removed is rejected by the same check
test_ktap_parses_with_matching_plans() {
	need_kunit_parser
	local f counts
	for f in "$RECORDS"/*.tsv ALL; do
		if [ "$f" = ALL ]; then
			results ktap "$RECORDS"/*.tsv --summary all > "$T/doc.ktap"
			counts=$(results count "$RECORDS"/*.tsv)
		else
			results ktap "$f" --title "${f##*/}" --summary "${f##*/}" > "$T/doc.ktap"
			counts=$(results count "$f")
		fi
		run_kit kit_py ktap count --kunit-dir "$KUNIT_DIR" "$T/doc.ktap"
		expect_rc 0 "kunit_parser on the KTAP of ${f##*/}"
		[ "$OUT" = "$counts" ] || fail "${f##*/}: kunit_parser counts '$OUT', results count '$counts'"
		[ "$(sed -nE '$s/^# [^:]*: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p' "$T/doc.ktap")" = "$counts" ] ||
			fail "${f##*/}: the summary line is not the counts" "$(tail -n1 "$T/doc.ktap")"
	done
	results ktap "$RECORDS/abi-5.10.tsv" | sed '/^    ok 1 ksm-break-ksm$/d' > "$T/bad.ktap"
	run_kit kit_py ktap count --kunit-dir "$KUNIT_DIR" "$T/bad.ktap"
	expect_rc 1 "kunit_parser on a document with a result line removed"
	expect_out 'Expected test number 1 but found 2|missing subtest result line|expected 2 test' "the plan mismatch is not named"
}

# how each status reads: diagnostics directly before their result line,
# SKIP and XFAIL with the reason (the text's last line), names nested by
# "/" ("\/" a slash within a level), a parent's own record after its
# children; a step record stands for its step only when nothing else does
test_ktap_statuses_and_nesting() {
	local out
	out=$(results ktap "$RECORDS/apply-6.1.tsv" "$RECORDS/check-6.12.tsv" "$RECORDS/boot-6.12-unpatched.tsv")
	printf '%s\n' "$out" > "$T/doc.ktap"
	grep -qx '# re-targeted from cocci/khugepaged-drop-writable.cocci (out/linux-6.1/0002-mm-enable-khugepaged-anonymous-collapse-on-non-writa.patch)' "$T/doc.ktap" ||
		fail "the re-targeted patch's reason is not before its result"
	grep -A1 -x '# re-targeted from cocci.*' "$T/doc.ktap" | grep -qx 'ok [0-9]* 0002-mm-enable-khugepaged-anonymous-collapse-on-non-writa.patch' ||
		fail "the reason is not directly before the result line"
	grep -qx 'ok [0-9]* 0004-Revert-mm-khugepaged-remove-definition-of-struct-khu.patch # SKIP not applicable: struct khugepaged_mm_slot is still defined (mm/khugepaged.c:98)' "$T/doc.ktap" ||
		fail "n/a is not a SKIP with its reason"
	grep -qx 'not ok [0-9]* 0006-locking-rwsem-add-down_read-_killable-_nosteal.patch' "$T/doc.ktap" || fail "not-tried is not a not ok"
	grep -qx 'not ok [0-9]* sparse mm/khugepaged.o' "$T/doc.ktap" || fail "a level with an escaped / is not one name"
	grep -qx '    ok 2 written_ro # XFAIL fails without khugepaged-ro-collapse, expect.table row [*]' "$T/doc.ktap" ||
		fail "xfail is not an XFAIL nested in its program"
	grep -B3 -x 'ok [0-9]* ro_collapse' "$T/doc.ktap" | grep -qx '    ok 3 readfault_ro # XFAIL.*' ||
		fail "the program's result does not follow its cases"
	grep -qx '    # Subtest: ro_collapse' "$T/doc.ktap" || fail "no subtest for the program"
	# the 6.1 apply step failed and its patches say why: no line of its
	# own; its check step stopped before writing any result: one not ok
	# with the step's text
	! grep -qE '^(not )?ok [0-9]+ apply$' "$T/doc.ktap" || fail "the apply step has a line besides its patches"
	grep -B1 -x 'not ok [0-9]* check' "$T/doc.ktap" | grep -qx '# the step stopped before it wrote any result' ||
		fail "a step without records is not a not ok with its reason"
	! grep -qE '^(not )?ok [0-9]+ boot-unpatched$' "$T/doc.ktap" || fail "a passed step with cases has a line of its own"
}

# records that are not records: one line each, exit 64
test_bad_records_are_one_line_errors() {
	local good
	good=$(sed -n 3p "$RECORDS/check-6.12.tsv")
	printf '%s\n' "${good/	fail	/	passed	}" > "$T/bad.tsv"
	run_kit results ktap "$T/bad.tsv"
	expect_rc 64 "a record with status 'passed'"
	expect_one_line_error "^results: error: .*/bad.tsv:1: 'passed' is not a result status; use one of: applied re-targeted"
	printf '%s\n' "$good" | cut -f1-7 > "$T/bad.tsv"
	run_kit results count "$T/bad.tsv"
	expect_one_line_error "bad.tsv:1: 7 fields, a record has 10"
	printf '%s\n' "${good/	-	-	/	ksm	-	}" > "$T/bad.tsv"
	run_kit results json -o "$T/x.json" "$T/bad.tsv"
	expect_one_line_error "'ksm' is not a topic of tables/topics.table; use one of: ksm-break-ksm"
	printf '%s\n' "${good/checkpatch/#checkpatch}" > "$T/bad.tsv"
	run_kit results ktap "$T/bad.tsv"
	expect_one_line_error "the name '#checkpatch .*' has an empty level or a '#'"
	printf 'case\tcheck\t6.12\tx\tpass\t-\tsoon\t\t-\t-\n' > "$T/bad.tsv"
	run_kit results ktap "$T/bad.tsv"
	expect_one_line_error "the seconds 'soon' are not a number"
	[ ! -e "$T/x.json" ] || fail "a JSON document was written from bad records"
}

# junit SUITE=FILE... -> $T/junit.xml
junit() {
	results junit -o "$T/junit.xml" "$@"
}

# out/junit.xml validates and says why: a failure's message is the
# reason (the last diagnostic line), the classname the suite and the
# program, XFAIL a <skipped> with its reason, a case the guest did not
# report an <error>
test_junit_validates_and_says_why() {
	need_kunit_parser
	kit_py ktap judge "$KIT_DIR/tests/ktap/guest-crash.log" --kunit-dir "$KUNIT_DIR" --branch 6.12 \
		--expect "$TABLES_DIR/boot-expect.table" --variant patched --title boot-patched --records "$T/crash.tsv" > /dev/null || true
	run_kit junit 6.12.check="$RECORDS/check-6.12.tsv" 6.12.boot-unpatched="$RECORDS/boot-6.12-unpatched.tsv" \
		6.12.crash="$T/crash.tsv" 6.1.apply="$RECORDS/apply-6.1.tsv" 5.10.abi="$RECORDS/abi-5.10.tsv"
	expect_rc 0 "results junit"
	run_kit xmllint --noout --schema "$XSD" "$T/junit.xml"
	expect_rc 0 "xmllint --schema junit-10.xsd"
	/usr/bin/python3 - "$T/junit.xml" <<'PY' || fail "junit.xml content"
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
bad = []
suites = {s.get('name'): s for s in root.findall('testsuite')}
for s in suites.values():
    cases = s.findall('testcase')
    for attr, tag in (('failures', 'failure'), ('errors', 'error'), ('skipped', 'skipped')):
        if int(s.get(attr)) != sum(1 for c in cases if c.find(tag) is not None):
            bad.append(f'{s.get("name")}: {attr}={s.get(attr)} does not count its <{tag}>')
    if int(s.get('tests')) != len(cases):
        bad.append(f'{s.get("name")}: tests={s.get("tests")} for {len(cases)} testcases')
check = {c.get('name'): c for c in suites['6.12.check'].findall('testcase')}
f = check['sparse mm/khugepaged.o'].find('failure')
if f is None or f.get('message') != '1 new sparse warning(s) in mm/khugepaged.o':
    bad.append('sparse failure message is not the diagnostic before the result line')
if check['checkpatch 0002-mm-enable-khugepaged-anonymous-collapse-on-non-writa.patch'].get('classname') != '6.12.check':
    bad.append('classname of a check case is not the suite')
boot = suites['6.12.boot-unpatched'].findall('testcase')
xf = [c for c in boot if c.get('name') == 'written_ro' and c.get('classname') == '6.12.boot-unpatched.ro_collapse']
if not xf:
    bad.append('written_ro has not the classname suite.program')
elif xf[0].find('skipped') is None or not xf[0].find('skipped').get('message', '').startswith('XFAIL fails without khugepaged-ro-collapse'):
    bad.append('the expected failure is not a <skipped> with the XFAIL reason')
if any('6.12' in (c.get('classname') or '').split('.', 2)[2:] for c in root.iter('testcase')):
    bad.append('a classname repeats the branch')
if not any(c.find('error') is not None for c in suites['6.12.crash'].findall('testcase')):
    bad.append('the crashed guest has no <error>')
apply = {c.get('name'): c for c in suites['6.1.apply'].findall('testcase')}
if apply['check'].find('error') is None or apply['check'].find('error').get('message') != 'the step stopped before it wrote any result':
    bad.append('the step that wrote no result is not an <error> with its reason')
abi = [c for c in suites['5.10.abi'].findall('testcase') if c.get('classname') == '5.10.abi.kabi']
if len(abi) != 3 or abi[1].find('failure') is None:
    bad.append('the kabi profile\'s topics are not cases of 5.10.abi.kabi with the breaking one failed')
print('\n'.join(f'# {b}' for b in bad))
sys.exit(1 if bad else 0)
PY
}

test_junit_invalid_is_rejected() {
	need_kunit_parser
	run_kit junit 6.12.check="$RECORDS/check-6.12.tsv"
	expect_rc 0 "results junit"
	sed 's/<testsuite name="6.12.check" tests="[0-9]*"/<testsuite name="6.12.check"/' "$T/junit.xml" > "$T/bad.xml"
	cmp -s "$T/junit.xml" "$T/bad.xml" && fail "the edit did not drop tests="
	run_kit xmllint --noout --schema "$XSD" "$T/bad.xml"
	expect_rc 3 "xmllint of a <testsuite> without tests="
	grep -q "attribute 'tests' is required" <<< "$OUT" || fail "xmllint did not name tests=" "$OUT"
}

# the JUnit writer is the kit's own: it needs no kernel tree (make's
# out/check/<tree>/junit.xml on a fresh machine, before any tree with the
# kernel's KTAP parser is cached): with an empty cache it writes a valid
# document, and no module calls kunit_dir to write JUnit
test_junit_needs_no_kernel_tree() {
	local bad
	mkdir -p "$T/empty-cache"
	MMBK_CACHE=$T/empty-cache run_kit results junit -o "$T/fresh.xml" 6.12.check="$RECORDS/check-6.12.tsv" \
		6.12.boot-unpatched="$RECORDS/boot-6.12-unpatched.tsv"
	expect_rc 0 "results junit with an empty cache"
	run_kit xmllint --noout --schema "$XSD" "$T/fresh.xml"
	expect_rc 0 "xmllint of the JUnit written with an empty cache"
	grep -q 'message="1 new sparse warning(s) in mm/khugepaged.o"' "$T/fresh.xml" ||
		fail "no failure message in the JUnit written with an empty cache"
	run_kit results junit -h
	! grep -q -- '--kunit-dir' <<< "$OUT" || fail "results junit still takes --kunit-dir" "$OUT"
	bad=$(grep -n 'results junit.*kunit' "$KIT_DIR"/lib/*.sh "$KIT_DIR"/bin/* || true)
	[ -z "$bad" ] || fail "a module looks for the kernel's parser to write JUnit" "$bad"
	# make (bin/demo) and every module it loads, transitively (kit_use
	# lines): none looks for the kernel's parser, which a fresh machine
	# does not have before make tree BRANCH=7.2
	bad=$(demo_modules | while read -r m; do grep -Hn 'kunit_dir' "$KIT_DIR/lib/$m.sh" | grep -v '^[^:]*:[0-9]*:\(#\|kunit_dir()\)'; done || true)
	[ -n "$(demo_modules)" ] || fail "no modules found for bin/demo"
	[ -z "$bad" ] || fail "make (bin/demo) would look for the kernel's KTAP parser" "$bad"
}

# demo_modules -> the modules bin/demo loads, and the modules they load
demo_modules() {
	local todo seen=' ' m
	todo=$(sed -n 's/^kit_use //p' "$KIT_DIR/bin/demo")
	while [ -n "${todo// /}" ]; do
		read -r m todo <<< "$todo"
		[[ $seen == *" $m "* ]] && continue
		seen="$seen$m "
		echo "$m"
		todo="$todo $(grep -o 'kit_use [a-z -]*' "$KIT_DIR/lib/$m.sh" | sed 's/^kit_use //' | tr '\n' ' ')"
	done
}

# json_records JSON -> the records of a results json document, written
# back as record lines by a reader of its own (seconds as numbers, topic
# null for -, text escaped)
json_records() {
	/usr/bin/python3 - "$1" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc['generated'].endswith('Z'), doc['generated']
for r in doc['records']:
    assert isinstance(r['seconds'], (float, type(None))), r
    assert set(r) == {'kind', 'step', 'branch', 'name', 'status', 'topic', 'seconds', 'text', 'version', 'target'}, r
    secs = '-' if r['seconds'] is None else ('%d' % r['seconds'] if r['seconds'] == int(r['seconds']) else repr(r['seconds']))
    text = r['text'].replace('\\', '\\\\').replace('\t', '\\t').replace('\n', '\\n')
    print('\t'.join([r['kind'], r['step'], r['branch'], r['name'], r['status'], r['topic'] or '-', secs, text,
                     r['version'] or '-', r['target'] or '-']))
PY
}

# the JSON document holds every record, typed: read back, it gives the
# record files again, byte for byte; a changed figure does not
test_json_round_trip() {
	results json -o "$T/r.json" "$RECORDS"/*.tsv
	json_records "$T/r.json" > "$T/back.tsv"
	cat "$RECORDS"/*.tsv > "$T/all.tsv"
	cmp -s "$T/all.tsv" "$T/back.tsv" || fail "the JSON does not give the records back" "$(diff "$T/all.tsv" "$T/back.tsv" | head)"
	/usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
r = [x for x in d["records"] if x["seconds"] is not None][0]
assert isinstance(r["seconds"], float)
r["seconds"] += 1
json.dump(d, open(sys.argv[1], "w"))' "$T/r.json"
	json_records "$T/r.json" > "$T/back.tsv"
	! cmp -s "$T/all.tsv" "$T/back.tsv" || fail "the round-trip check does not see a changed figure"
}

# row LABEL -> the cells of the matrix row LABEL in $T/matrix.md
row() {
	awk -F'|' -v l="$1" '{ x = $2; gsub(/^ +| +$/, "", x) }
		x == l { for (i = 3; i < NF; i++) { c = $i; gsub(/^ +| +$/, "", c); s = s (i > 3 ? "|" : "") c }
			print s; exit }' "$T/matrix.md"
}

# check_rows: the rows the canned records must give (prints what differs)
check_rows() {
	local want
	while IFS='=' read -r label want; do
		[ "$(row "$label")" = "$want" ] || echo "row '$label': '$(row "$label")', expected '$want'"
	done <<-'EOF'
	**tree**=6.1.158|6.12.117|-
	**topic ksm-break-ksm**=applied|nothing to do|not run
	0001-mm-ksm-simplify-break_ksm-to-not-rely-on-VM_FAULT_WR=applied|already upstream|not run
	**topic khugepaged-ro-collapse**=re-targeted|applied|not run
	0002-mm-enable-khugepaged-anonymous-collapse-on-non-writa=re-targeted from cocci/khugepaged-drop-writable.cocci|applied|not run
	0003-mm-drop-all-references-of-writable-and-SCAN_PAGE_RO=re-anchored definitions|applied|not run
	**topic khugepaged-mmap-lock**=failed|applied|not run
	0004-Revert-mm-khugepaged-remove-definition-of-struct-khu=n/a|n/a|not run
	0006-locking-rwsem-add-down_read-_killable-_nosteal=not applied|applied|not run
	**check**=0 passed, 1 failed, 0 skipped|5 passed, 2 failed, 2 skipped|not run
	**abi** (out/abi/)=-|-|3 passed, 1 failed, 1 skipped
	**boot unpatched**=-|21 passed, 0 failed, 0 skipped|-
	*time tree (s)*=3|4|
	*time check (s)*=0|312|
	*time boot-unpatched (s)*=|288|
	EOF
}

# the matrix: a column per branch, the rows of matrix.sh's table from the
# records, the n/a patches listed after it; a record file without 6.12's
# patch records gives other rows, and the check says so
test_markdown_rows() {
	local bad
	results markdown -o "$T/matrix.md" --branches "6.1 6.12 5.10" "$RECORDS"/*.tsv
	head -n 4 "$T/matrix.md" | tail -n 2 | grep -qx '| | 6.1 | 6.12 | 5.10 |' || fail "no header row" "$(cat "$T/matrix.md")"
	bad=$(check_rows)
	[ -z "$bad" ] || fail "$bad" "$(cat "$T/matrix.md")"
	grep -qx -- '- n/a on 6.1, 0004: struct khugepaged_mm_slot is still defined (mm/khugepaged.c:98)' "$T/matrix.md" ||
		fail "no n/a line for 6.1's 0004"
	grep -v '^patch' "$RECORDS/apply-6.12.tsv" > "$T/apply-6.12.tsv"
	results markdown -o "$T/matrix.md" --branches "6.1 6.12 5.10" "$RECORDS/apply-6.1.tsv" "$T/apply-6.12.tsv" \
		"$RECORDS/check-6.12.tsv" "$RECORDS/abi-5.10.tsv" "$RECORDS/boot-6.12-unpatched.tsv"
	bad=$(check_rows)
	grep -q "row '0002-mm-enable-khugepaged-anonymous-collapse-on-non-writa': 're-targeted from cocci/khugepaged-drop-writable.cocci|not run|not run'" <<< "$bad" ||
		fail "the row check does not see 6.12's missing patch records" "$bad"
	run_kit results markdown -o "$T/matrix.md" --branches "6.1 4.19" "$RECORDS"/*.tsv
	expect_one_line_error "--branches '6.1 4.19' names no branch or unknown ones \(4.19\); use branches of tables/branches.table"
}

# a plan's step that left no record is an error record naming it (any
# record of its branch and step counts as one), each named once on
# stdout; a plan line that is not BRANCH<TAB>STEP is a one-line error
test_expect_names_missing_steps() {
	local out rc=0
	printf '6.1\ttree\n6.1\tapply\n6.1\tapply\n7.2\tcheck\n' > "$T/plan.tsv"
	printf 'step\ttree\t6.1\ttree\tpass\t-\t1\tLinux 6.1.1\t6.1.1\t-\n' > "$T/have.tsv"
	printf 'case\tapply\t6.1\tx\tfail\t-\t-\twhy\t6.1.1\t-\n' >> "$T/have.tsv"
	out=$(results expect --plan "$T/plan.tsv" -o "$T/missing.tsv" "$T/have.tsv")
	[ "$out" = "7.2 check" ] || fail "expect named '$out', expected only 7.2 check"
	[ "$(results count "$T/missing.tsv")" = "0 1 0" ] || fail "the missing step is not one failure" "$(cat "$T/missing.tsv")"
	grep -q '^case	check	7\.2	check	error	.*left no record' "$T/missing.tsv" || fail "no error record of 7.2 check" "$(cat "$T/missing.tsv")"
	out=$(results expect --plan "$T/plan.tsv" -o "$T/missing.tsv")
	[ "$(printf '%s\n' "$out" | paste -sd,)" = "6.1 tree,6.1 apply,7.2 check" ] || fail "without records every step is missing: $out"
	printf '6.1\tfrobnicate\n' > "$T/badplan.tsv"
	run_kit results expect --plan "$T/badplan.tsv" -o "$T/missing.tsv"
	expect_one_line_error "badplan.tsv:1: the planned step 'frobnicate' is of no step kind the writers know"
	printf '6.1 tree\n' > "$T/badplan.tsv"
	out=$(results expect --plan "$T/badplan.tsv" -o "$T/missing.tsv" 2>&1) || rc=$?
	{ [ "$rc" -ne 0 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && grep -q "is not BRANCH<TAB>STEP" <<< "$out"; } ||
		fail "a bad plan line is not a one-line error (exit $rc)" "$out"
}

# hostile_records FILE: records whose names and text hold what guests and
# tools print: colour escapes (khugepaged's "ESC[31mFail ESC[0m"), NUL, a
# lone surrogate (CESU bytes: invalid UTF-8), bytes that are no UTF-8,
# "]]>", "&" and "<", "#" and KTAP's own phrases ("# Subtest:", the
# kernel's end-of-output lines), line separators Python splits on, CR and
# FF; in a failed, a skipped, an xfail and a passed record
hostile_records() {
	{
		printf 'case\tselftests\t6.12\tkhugepaged/\033[31mcollapse\033[0m\tfail\t-\t-\t'
		printf '\033[31mFail\033[0m khugepaged\\nNUL:\000:end\\nlone surrogate:\355\240\200:end\\n'
		printf 'invalid:\377\376:end\\nCDATA ]]> end & <tag>\\n# Subtest: not_a_test\\nSubtest: nor_this\\n'
		printf 'reboot: System halted\\nKernel panic - not syncing: VFS: no root\\nList of all partitions:\\n'
		printf 'line\342\200\250sep\302\205nel\rcr\014ff\\nthe reason # with a hash\t6.12.118\tx86_64\n'
		printf 'case\tcheck\t6.12\tsparse\tskip\t-\t-\tskipped: \033[1mbold\033[0m ]]> # why\t-\t-\n'
		printf 'case\tboot-patched\t6.12\tnosteal/x\txfail\t-\t-\tfails \000\033 # known ]]>\t-\t-\n'
		printf 'case\tboot-patched\t6.12\tnosteal/y\tpass\t-\t-\tok \033[0m\t-\t-\n'
	} > "$1"
}

# no_controls FILE...: each file is UTF-8 with no control character but
# tab and newline, no surrogate and no U+FFFE/U+FFFF (prints what it finds)
no_controls() {
	/usr/bin/python3 - "$@" <<'PY'
import re, sys
bad = re.compile('[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff\u2028\u2029]')
for path in sys.argv[1:]:
    try:
        text = open(path, 'rb').read().decode('utf-8')
    except UnicodeDecodeError as e:
        print(f'{path}: not UTF-8: {e}')
        continue
    for n, line in enumerate(text.split('\n'), 1):
        m = bad.search(line)
        if m:
            print(f'{path}:{n}: U+{ord(m.group()):04X} in {line!r}')
PY
}

# text from guests and tools is made safe once, in the result model: the
# KTAP of hostile records parses with the kernel's parser (its counts the
# records' counts), the JUnit validates against the schema with the
# failure's reason and the "]]>" kept, the JSON and the Markdown are
# UTF-8 without control characters; a Record made in Python with a lone
# surrogate is written and read back
test_hostile_text_is_safe_in_every_output() {
	need_kunit_parser
	local bad counts
	hostile_records "$T/h.tsv"
	run_kit results count "$T/h.tsv"
	expect_rc 0 "results count of hostile records"
	counts=$OUT
	[ "$counts" = "2 1 1" ] || fail "hostile records count '$counts', expected '2 1 1'"
	run_kit results ktap "$T/h.tsv" --title hostile --summary hostile
	expect_rc 0 "results ktap of hostile records"
	printf '%s\n' "$OUT" > "$T/h.ktap"
	run_kit kit_py ktap count --kunit-dir "$KUNIT_DIR" "$T/h.ktap"
	expect_rc 0 "kunit_parser on the KTAP of hostile records"
	[ "$OUT" = "$counts" ] || fail "kunit_parser counts '$OUT' in the KTAP of hostile records, results count '$counts'" "$(cat "$T/h.ktap")"
	run_kit results junit -o "$T/h.xml" "6.12.hostile"$'\033[1m'"=$T/h.tsv"
	expect_rc 0 "results junit of hostile records"
	run_kit xmllint --noout --schema "$XSD" "$T/h.xml"
	expect_rc 0 "xmllint --schema of the JUnit of hostile records"
	/usr/bin/python3 - "$T/h.xml" <<'PY' || fail "the JUnit of hostile records lost what it must say"
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
f = [c for c in root.iter('testcase') if c.find('failure') is not None]
assert len(f) == 1, f
assert f[0].get('name') == 'collapse', f[0].get('name')
assert f[0].find('failure').get('message') == 'the reason # with a hash', f[0].find('failure').get('message')
assert 'CDATA ]]> end & <tag>' in f[0].find('failure').text
assert 'Fail' in f[0].find('failure').text
PY
	run_kit results json -o "$T/h.json" "$T/h.tsv"
	expect_rc 0 "results json of hostile records"
	/usr/bin/python3 -c 'import json, sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$T/h.json" ||
		fail "the JSON of hostile records does not load"
	run_kit results markdown -o "$T/h.md" --branches 6.12 "$T/h.tsv"
	expect_rc 0 "results markdown of hostile records"
	bad=$(no_controls "$T/h.ktap" "$T/h.xml" "$T/h.json" "$T/h.md")
	[ -z "$bad" ] || fail "control characters in the outputs" "$bad"
	run_kit env PYTHONPATH="$KIT_DIR" /usr/bin/python3 -B -c 'import sys
from mmbk import results
r = results.Record("case", "check", "6.12", "x\ud800", "fail", text="a\udcff\x1b[31mred\x1b[0m\x00b")
results.write(sys.argv[1], [r])
back = results.read([sys.argv[1]])[0]
print(back.name, back.text)' "$T/py.tsv"
	expect_rc 0 "a Record with a lone surrogate written and read back"
	[ "$OUT" = "x� a�red␀b" ] || fail "the Record read back is '$OUT'"
}

# kind_records FILE: a failing record of each step kind of a run (the 10
# fields of mmbk/results.py): the tree and apply steps (a tree that could
# not be fetched, a topic that failed), check and check-TARGET, abi, the
# boots, the selftests steps, make test's unit steps and its own checks
# (a writer that failed, a planned step that left no record)
kind_records() {
	local s
	{
		printf 'case\tapply\t6.12\ttree\terror\t-\t-\tthe tree could not be fetched\t-\t-\n'
		printf 'topic\tapply\t6.12\tkhugepaged-mmap-lock\tfailed\tkhugepaged-mmap-lock\t-\t0006 did not apply\t6.12.118\t-\n'
		for s in check check-llvm check-arm64 check-arm64-llvm abi boot-patched boot-unpatched-arm64 boot-patched-rt \
			selftests selftests-arm64 selftests-rt; do
			printf 'case\t%s\t6.12\tcase_of_%s\tfail\t-\t-\t%s failed here\t6.12.118\tx86_64\n' "$s" "$s" "$s"
		done
		printf 'case\tunit\tunit\tt-check.catches\tfail\t-\t3\tthe unit test failed\t-\t-\n'
		printf 'case\tfast\tunit\tfast\terror\t-\t9\tfast exited with status 2 without a failed result\t-\t-\n'
		printf 'case\twriter\tmatrix\tout/junit.xml\terror\t-\t-\tthe writer of out/junit.xml failed\t-\t-\n'
		printf 'case\tboot-patched\t6.1\tboot-patched\terror\t-\t-\tthe step boot-patched of 6.1 left no record\t-\t-\n'
	} > "$1"
}

# every step kind is a failure in every output: fed a failing record of
# each kind, the count, the KTAP (read by the kernel's parser), the JUnit,
# the JSON and the matrix's Markdown (a row of its own for each step of a
# column's branch, and a line for each failure) each show every one; a
# step of no kind the writers know is a one-line error of every writer,
# never an omission
test_every_step_kind_fails_in_every_output() {
	need_kunit_parser
	local n s f
	kind_records "$T/k.tsv"
	n=$(grep -c . "$T/k.tsv")
	[ "$(results count "$T/k.tsv")" = "0 $n 0" ] || fail "results count: '$(results count "$T/k.tsv")', expected 0 $n 0"
	results ktap "$T/k.tsv" > "$T/k.ktap"
	run_kit kit_py ktap count --kunit-dir "$KUNIT_DIR" "$T/k.ktap"
	[ "$OUT" = "0 $n 0" ] || fail "kunit_parser counts '$OUT' in the KTAP, expected 0 $n 0" "$(cat "$T/k.ktap")"
	run_kit results junit -o "$T/k.xml" run="$T/k.tsv"
	expect_rc 0 "results junit"
	run_kit xmllint --noout --schema "$XSD" "$T/k.xml"
	expect_rc 0 "xmllint --schema"
	f=$(/usr/bin/python3 -c 'import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
print(sum(c.find("failure") is not None or c.find("error") is not None for c in r.iter("testcase")))' "$T/k.xml")
	[ "$f" = "$n" ] || fail "the JUnit has $f failed cases, expected $n" "$(cat "$T/k.xml")"
	results json -o "$T/k.json" "$T/k.tsv"
	f=$(/usr/bin/python3 -c 'import json, sys
print(sum(r["status"] in ("fail", "failed", "error") for r in json.load(open(sys.argv[1]))["records"]))' "$T/k.json")
	[ "$f" = "$n" ] || fail "the JSON has $f failed records, expected $n"
	results markdown -o "$T/matrix.md" --branches "6.12 6.1" "$T/k.tsv"
	[ "$(row '**topic khugepaged-mmap-lock**')" = "failed|not run" ] || fail "the failed topic: '$(row '**topic khugepaged-mmap-lock**')'" "$(cat "$T/matrix.md")"
	for s in check check-llvm check-arm64 check-arm64-llvm abi boot-patched boot-unpatched-arm64 boot-patched-rt \
		selftests selftests-arm64 selftests-rt; do
		grep -qE "^\| \*\*[^|]*\*\*[^|]*\| 0 passed, 1 failed, 0 skipped \|" <<< "$(grep -F "**${s/boot-/boot }**" "$T/matrix.md")" ||
			fail "no row of $s with its failure in the Markdown" "$(cat "$T/matrix.md")"
		grep -qxF -- "- 6.12 $s: case_of_$s: $s failed here" "$T/matrix.md" || fail "no failure line of $s in the Markdown" "$(cat "$T/matrix.md")"
	done
	[ "$(row '**boot patched**')" = "0 passed, 1 failed, 0 skipped|0 passed, 1 failed, 0 skipped" ] ||
		fail "the boot-patched row: '$(row '**boot patched**')'" "$(cat "$T/matrix.md")"
	for s in '6.12 apply: tree: the tree could not be fetched' '6.12 apply: khugepaged-mmap-lock: 0006 did not apply' \
		'unit unit: t-check.catches: the unit test failed' 'unit fast: fast: fast exited with status 2 without a failed result' \
		'matrix writer: out/junit.xml: the writer of out/junit.xml failed' '6.1 boot-patched: boot-patched: the step boot-patched of 6.1 left no record'; do
		grep -qxF -- "- $s" "$T/matrix.md" || fail "no failure line '- $s' in the Markdown" "$(cat "$T/matrix.md")"
	done
	[ "$(grep -c '^- .*: .*: ' "$T/matrix.md")" = "$n" ] || fail "not $n failure lines in the Markdown" "$(cat "$T/matrix.md")"
	# a step no writer knows
	printf 'case\tfrobnicate\t6.12\tx\tfail\t-\t-\twhy\t-\t-\n' > "$T/u.tsv"
	for f in "ktap $T/u.tsv" "count $T/u.tsv" "json -o $T/u.json $T/u.tsv" "junit -o $T/u.xml s=$T/u.tsv" \
		"markdown -o $T/u.md --branches 6.12 $T/u.tsv"; do
		# shellcheck disable=SC2086  # the arguments of one writer
		run_kit results $f
		expect_one_line_error "u.tsv:1: the step 'frobnicate' is of no step kind the writers know; use a step of: tree apply"
	done
	if [ -e "$T/u.json" ] || [ -e "$T/u.xml" ] || [ -e "$T/u.md" ]; then
		fail "a writer wrote an output of a step it does not know"
	fi
}

# every step name the kit writes records under is of a step kind the
# writers know (a record of no kind is an error of every writer): the
# literal steps of `result FILE KIND STEP` in lib/ and the test runners,
# and those of the Python tools (before: tests/cocci/run.sh's 'cocci'
# failed every writer, seen in a CI run, t-regen cocci_cases)
test_every_step_the_kit_writes_has_a_kind() {
	local steps bad
	steps=$(cd "$KIT_DIR" && {
		grep -hoE '\bresult "[^"]*" [a-z-]+ [a-z][a-z0-9-]*( |$)' lib/*.sh tests/cocci/run.sh tests/unit/run.sh tests/unit/harness.sh |
			awk '{ print $4 }'
		grep -hoE "Record\('[a-z]+', '[a-z][a-z0-9-]*'" mmbk/*.py | sed "s/.*, '//; s/'\$//"
		sed -n "s/^STEP = '\\(.*\\)'\$/\\1/p" mmbk/*.py
	} | sort -u)
	[ "$(wc -l <<< "$steps")" -ge 8 ] || fail "the step names were not found in the kit's sources" "$steps"
	mapfile -t steps <<< "$steps"
	bad=$(PYTHONPATH=$KIT_DIR /usr/bin/python3 -B -P -c 'import sys
from mmbk import results
print("\n".join(s for s in sys.argv[1:] if results.step_kind(s) is None))' "${steps[@]}")
	[ -z "$bad" ] || fail "steps the kit writes that no writer knows: $bad" "all: ${steps[*]}"
}

# kind_plan FILE: the run's plan (lib/steps.sh step_plan's format) of the
# steps of kind_records, with their kind, target and variant, in an order
# of its own, and four planned steps that left no record: 6.12's tree
# step (kind_records has none of it), boot-without-ksm-break-ksm and
# selftests-llvm, 6.1's check-llvm
kind_plan() {
	{
		printf 'branch\tstep\tkind\ttarget\tvariant\n'
		printf '6.12\ttree\ttree\t-\t-\n6.12\tapply\tapply\t-\tpatched\n'
		printf '6.12\t%s\tcheck\t%s\tpatched\n' check-arm64-llvm arm64-llvm check-llvm llvm check default check-arm64 arm64
		printf '6.12\tabi\tabi\tdefault\tseries profile default\n'
		printf '6.12\t%s\tboot\t%s\t%s\n' boot-patched default patched boot-without-ksm-break-ksm default without-ksm-break-ksm \
			boot-unpatched-arm64 arm64 unpatched boot-patched-rt default patched@rt
		printf '6.12\t%s\tselftests\t%s\t%s\n' selftests default patched selftests-arm64 arm64 patched \
			selftests-rt default patched@rt selftests-llvm llvm patched+unpatched
		printf '6.1\tboot-patched\tboot\tdefault\tpatched\n6.1\tcheck-llvm\tcheck\tllvm\tpatched\n'
		printf 'unit\tfast\tunit\t-\t-\nunit\tunit\tunit\t-\t-\nmatrix\twriter\trun\t-\t-\n'
	} > "$1"
}

# the plan is the one step list every writer reads (--plan): fed a
# failing record of each step kind and the plan, the Markdown has a row of
# every planned step in plan order labelled with its target and variant,
# "not run" for a planned step that left no record and a line of it in
# the failures; the KTAP (through the kernel's parser), the JUnit
# (validated, a suite of each step with its kind, target and variant as
# properties) and the JSON (its "plan" with each step's outcome) each
# have a failure of every failing record and of every step that left none;
# a plan whose kind is not its step's is a one-line error
test_plan_drives_every_writer() {
	need_kunit_parser
	local n want got s f suites=()
	kind_records "$T/k.tsv"
	kind_plan "$T/plan.tsv"
	n=$(( $(grep -c . "$T/k.tsv") + 4 ))
	run_kit results markdown -o "$T/matrix.md" --branches "6.12 6.1" --plan "$T/plan.tsv" "$T/k.tsv"
	expect_rc 0 "results markdown --plan"
	want='check-arm64-llvm check-llvm check check-arm64 abi boot-patched boot-without-ksm-break-ksm boot-unpatched-arm64 boot-patched-rt selftests selftests-arm64 selftests-rt selftests-llvm'
	got=$(sed -nE 's/^\| \*\*([a-z0-9-]+|boot [a-z0-9@-]+)\*\*.*/\1/p' "$T/matrix.md" | sed 's/^boot /boot-/' |
		grep -vE '^(tree|topic)' | paste -sd' ')
	[ "$got" = "$want" ] || fail "the Markdown's step rows are not the plan's, in its order: '$got'" "$(cat "$T/matrix.md")"
	grep -qF '| **check-llvm** *llvm, patched* | 0 passed, 1 failed, 0 skipped | not run |' "$T/matrix.md" ||
		fail "check-llvm's row has not its target and variant, or 6.1's planned check-llvm is not 'not run'" "$(cat "$T/matrix.md")"
	grep -qF '| **boot patched-rt** *default, patched@rt* | 0 passed, 1 failed, 0 skipped | - |' "$T/matrix.md" ||
		fail "boot-patched-rt's row has not its target and variant" "$(cat "$T/matrix.md")"
	[ "$(row '**boot without-ksm-break-ksm** *default, without-ksm-break-ksm*')" = 'not run|-' ] ||
		fail "the planned boot without a record is not 'not run'" "$(cat "$T/matrix.md")"
	[ "$(row '**selftests-llvm** *llvm, patched+unpatched*')" = 'not run|-' ] ||
		fail "the planned selftests without a record is not 'not run'" "$(cat "$T/matrix.md")"
	[ "$(row '**tree**')" = 'not run|-' ] || fail "6.12's planned tree step without a record is not 'not run'" "$(cat "$T/matrix.md")"
	for s in '6.12 tree' '6.12 boot-without-ksm-break-ksm' '6.12 selftests-llvm' '6.1 check-llvm'; do
		grep -qxF -- "- $s: ${s#* }: the step ${s#* } of ${s%% *} left no record: it did not run, or the run that should have run it broke off, or its records were lost" \
			"$T/matrix.md" || fail "no failure line of the planned step $s that left no record" "$(cat "$T/matrix.md")"
		grep -qxF -- "- $s" "$T/matrix.md" || fail "$s is not listed as planned but not run" "$(cat "$T/matrix.md")"
	done
	[ "$(grep -c '^- .*: .*: ' "$T/matrix.md")" = "$n" ] || fail "not $n failure lines in the Markdown" "$(cat "$T/matrix.md")"
	# KTAP
	run_kit results ktap --plan "$T/plan.tsv" "$T/k.tsv"
	expect_rc 0 "results ktap --plan"
	printf '%s\n' "$OUT" > "$T/k.ktap"
	grep -qx 'not ok [0-9]* boot-without-ksm-break-ksm' "$T/k.ktap" || fail "no not ok of the planned boot without a record" "$OUT"
	run_kit kit_py ktap count --kunit-dir "$KUNIT_DIR" "$T/k.ktap"
	[ "$OUT" = "0 $n 0" ] || fail "kunit_parser counts '$OUT' in the KTAP with the plan, expected 0 $n 0" "$(cat "$T/k.ktap")"
	# JUnit: a suite per step
	mkdir -p "$T/steps"
	awk -F'\t' -v d="$T/steps" '{ print > (d "/" $3 "-" $2 ".tsv") }' "$T/k.tsv"
	for f in "$T"/steps/*.tsv; do
		s=${f##*/}
		suites+=("${s%.tsv}=$f")
	done
	run_kit results junit -o "$T/k.xml" --plan "$T/plan.tsv" "${suites[@]}"
	expect_rc 0 "results junit --plan"
	run_kit xmllint --noout --schema "$XSD" "$T/k.xml"
	expect_rc 0 "xmllint --schema of the JUnit with the plan"
	/usr/bin/python3 - "$T/k.xml" "$n" <<'PY' || fail "the JUnit with the plan" "$(cat "$T/k.xml")"
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
n = int(sys.argv[2])
suites = {s.get('name'): s for s in root.findall('testsuite')}
bad = sum(c.find('failure') is not None or c.find('error') is not None for c in root.iter('testcase'))
assert bad == n, f'{bad} failed cases, expected {n}'
for name in ('6.12-tree', '6.12-boot-without-ksm-break-ksm', '6.12-selftests-llvm', '6.1-check-llvm'):
    s = suites[name]
    assert s.find('testcase/error') is not None, f'{name} has no <error>'
props = {p.get('name'): p.get('value') for p in suites['6.12-check-llvm'].findall('properties/property')}
assert props == {'kind': 'check', 'target': 'llvm', 'variant': 'patched'}, props
props = {p.get('name'): p.get('value') for p in suites['6.12-boot-patched-rt'].findall('properties/property')}
assert props == {'kind': 'boot', 'target': 'default', 'variant': 'patched@rt'}, props
order = [s.get('name') for s in root.findall('testsuite')]
assert order.index('6.12-check-arm64-llvm') < order.index('6.12-check-llvm') < order.index('6.12-abi') \
    < order.index('6.12-boot-without-ksm-break-ksm') < order.index('6.1-boot-patched'), order
PY
	# JSON
	run_kit results json -o "$T/k.json" --plan "$T/plan.tsv" "$T/k.tsv"
	expect_rc 0 "results json --plan"
	/usr/bin/python3 - "$T/k.json" "$n" <<'PY' || fail "the JSON with the plan" "$(cat "$T/k.json")"
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
bad = sum(r['status'] in ('fail', 'failed', 'error') for r in d['records'])
assert bad == n, f'{bad} failed records, expected {n}'
plan = {(p['branch'], p['step']): p for p in d['plan']}
assert plan[('6.12', 'selftests-llvm')]['outcome'] == 'not run', plan[('6.12', 'selftests-llvm')]
assert plan[('6.12', 'check-llvm')] == {'branch': '6.12', 'step': 'check-llvm', 'kind': 'check', 'target': 'llvm',
                                       'variant': 'patched', 'outcome': 'failed'}, plan[('6.12', 'check-llvm')]
assert [p['step'] for p in d['plan']][:4] == ['tree', 'apply', 'check-arm64-llvm', 'check-llvm'], d['plan'][:4]
PY
	# a plan whose kind is not its step's
	printf 'branch\tstep\tkind\ttarget\tvariant\n6.12\tcheck-llvm\tboot\tllvm\tpatched\n' > "$T/badplan.tsv"
	run_kit results markdown -o "$T/bad.md" --branches 6.12 --plan "$T/badplan.tsv" "$T/k.tsv"
	expect_one_line_error "badplan.tsv:2: the planned step 'check-llvm' is of the kind check, not boot"
}
