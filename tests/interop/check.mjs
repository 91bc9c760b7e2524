// SPDX-License-Identifier: BSL-1.0
// The tiny test vocabulary of the Node interop scripts: named checks, a summary, an exit status.
let passed = 0;
let failed = 0;

export function check(name, ok, detail) {
  if (ok) {
    passed++;
    console.log(`ok   ${name}`);
    return;
  }
  failed++;
  const text = detail === undefined || detail === "" ? "" : typeof detail === "string" ? detail : JSON.stringify(detail);
  console.log(`FAIL ${name}${text ? ": " + text.slice(0, 2000) : ""}`);
}

// Print the summary and exit 0 only if every check passed.
export function finish() {
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}
