"""Counts the tests a CI run ran, from the logs scripts/test.sh keeps of its
steps, so that two runs compare at a glance (no count may go down):

    python3 scripts/lib/test-counts.py LOG_DIR

LOG_DIR holds what each step printed (stdout and stderr): cargo-test.log
(`cargo test --workspace`: one line per test binary that ran tests, the
unit tests of each crate, each integration test binary, the doc-tests),
fuzz.log (`fuzz: N passed, N failed`, one per target), pytest.log (pytest's
closing line) and conformance.log (`conformance (RUN): N passed, ...`, one
per suite run). A log that is missing (its step did not run) is said so.
Prints the table on stdout; exits 0 whatever it finds.
"""

import pathlib
import re
import sys

RUNNING = re.compile(r"^\s*Running (.+?) \((?:.*/)?([^/()]+?)-[0-9a-f]{16}\)\s*$")
DOCTESTS = re.compile(r"^\s*Doc-tests (\S+)\s*$")
RESULT = re.compile(
    r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored; \d+ measured; (\d+) filtered out"
)
PYTEST = re.compile(r"^=*\s*((?:\d+ \w+(?:, )?)+) in [\d.]+s")
FUZZ = re.compile(r"^fuzz: (\S+): (\d+|\?) executions in (\d+)s, no crash$|^fuzz: (\S+): CRASHED")
CONFORMANCE = re.compile(r"^conformance \(([^)]+)\): (.*)$")


def cargo_rows(text: str) -> list[tuple[str, str]]:
    """(what, counts) for every test binary whose run printed a result."""
    rows = []
    current = None
    for line in text.splitlines():
        if m := RUNNING.match(line):
            source, crate = m.groups()
            if source.startswith("unittests "):
                source = f"unit tests, {source.removeprefix('unittests ')}"
            current = f"{crate}: {source}"
        elif m := DOCTESTS.match(line):
            current = f"{m.group(1)}: doc-tests"
        elif (m := RESULT.match(line)) and current:
            passed, failed, ignored, filtered = map(int, m.groups())
            if passed or failed or ignored:
                extra = f", {filtered} filtered out" if filtered else ""
                rows.append((current, f"{passed} passed, {failed} failed, {ignored} ignored{extra}"))
            current = None
    return rows


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    logs = pathlib.Path(sys.argv[1])

    def read(name: str) -> str | None:
        path = logs / name
        return path.read_text(errors="replace") if path.is_file() else None

    print("== tests run (from the steps' logs; compare before and after a change)")
    width = 44
    text = read("cargo-test.log")
    if text is None:
        print("cargo test: did not run")
    else:
        rows = cargo_rows(text)
        total = [0, 0, 0]
        for what, counts in rows:
            print(f"{what:<{width}} {counts}")
            for i, n in enumerate(re.findall(r"(\d+) (?:passed|failed|ignored)", counts)):
                total[i] += int(n)
        print(f"{'cargo test, all binaries':<{width}} {total[0]} passed, {total[1]} failed, {total[2]} ignored")
    text = read("fuzz.log")
    if text is None:
        print("fuzz: did not run")
    else:
        targets = [m for m in map(FUZZ.match, text.splitlines()) if m]
        crashed = sum(1 for m in targets if m.group(4))
        print(f"{'fuzz targets':<{width}} {len(targets)} run, {crashed} crashed")
    text = read("pytest.log")
    if text is None:
        print("pytest: did not run")
    else:
        closing = [m.group(1) for m in map(PYTEST.match, text.splitlines()) if m]
        print(f"{'pytest tests/python':<{width}} {closing[-1] if closing else 'no closing line'}")
    text = read("conformance.log")
    if text is None:
        print("conformance: did not run")
    else:
        for m in map(CONFORMANCE.match, text.splitlines()):
            if m:
                print(f"{'conformance scenarios (' + m.group(1) + ')':<{width}} {m.group(2)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
