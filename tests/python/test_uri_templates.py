"""Resource template matching behaves as tests/uri-templates.json says in the
JavaScript SDK (sdk-js/src/templates.js, in plain Node). The host
(runtime/uri_match.rs), the Rust SDK (sdk-guest), the Python SDK
(test_sdk_schema.py) and the Go SDK (sdk-go/mcp/serve_test.go) read the
same cases in their own unit tests.

Needs MCP_WASM_HOST_NODE (scripts/setup-node.sh); scripts/test.sh sets it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import find_toolchain

REPO = Path(__file__).resolve().parents[2]

CHECK = """
import { readFileSync } from "node:fs";
import { matchTemplate } from "%s";
const corpus = JSON.parse(readFileSync(%s, "utf8"));
const sorted = (vars) => vars && Object.fromEntries(Object.entries(vars).sort());
const wrong = [];
for (const c of corpus.cases) {
  const got = matchTemplate(c.template, c.uri) ?? null;
  if (JSON.stringify(sorted(got)) !== JSON.stringify(sorted(c.vars))) wrong.push({ ...c, got });
}
console.log(JSON.stringify({ cases: corpus.cases.length, wrong }));
"""


def test_the_js_sdk_matches_templates_as_the_shared_cases_say() -> None:
    node = find_toolchain("MCP_WASM_HOST_NODE", "setup-node.sh", "node")
    script = CHECK % ((REPO / "sdk-js" / "src" / "templates.js").as_uri(),
                      json.dumps(str(REPO / "tests" / "uri-templates.json")))
    done = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["cases"] > 20
    assert result["wrong"] == [], json.dumps(result["wrong"], indent=1, ensure_ascii=False)
