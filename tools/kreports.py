#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Find kernel reports in a KUnit test log and attribute them to test cases.

    kreports.py TEST_LOG KNOWN_REPORTS

A report is a KASAN, UBSAN, lockdep, debugobjects, WARN or BUG splat. Each is
attributed to the test case running when it was printed ("boot" before the
first one). KNOWN_REPORTS lists known upstream reports, one per line:

    <test glob> <report regex> -- <reason>

Every report not matched by a line there fails; each known report is printed
with its reason.
"""
import fnmatch
import re
import sys

# Lines that look like reports but are not.
BENIGN = re.compile(r"KernelAddressSanitizer initialized")
CASE = re.compile(r"#\s+(\S+)\.location:|^\s*#\s+Subtest:\s+(\S+)|^\s*(?:not )?ok \d+ (\S+)")
SPLAT = re.compile(r"(BUG: KASAN|BUG: |WARNING: |UBSAN: |ODEBUG: |Oops|INFO: |Kernel panic|"
                   r"list_(add|del) corruption|bad unlock balance)")


def load_known(path):
    known = []
    try:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                rule, _, reason = line.partition(" -- ")
                glob, _, regex = rule.partition(" ")
                known.append((glob, re.compile(regex.strip()), reason.strip()))
    except OSError:
        pass
    return known


def main():
    log, known_path = sys.argv[1], sys.argv[2]
    known = load_known(known_path)
    current = "boot"
    reports = []
    with open(log, errors="replace") as f:
        for line in f:
            m = CASE.search(line)
            if m:
                name = m.group(1) or m.group(2)
                if name:
                    current = name
                continue
            if BENIGN.search(line):
                continue
            if SPLAT.search(line):
                reports.append((current, line.rstrip()))
    bad = []
    for test, text in reports:
        reason = next((r for g, rx, r in known if fnmatch.fnmatch(test, g) and rx.search(text)), None)
        if reason is None:
            bad.append((test, text))
        else:
            print(f"kunit: known upstream report in {test}: {text.strip()} ({reason})")
    for test, text in bad:
        print(f"kunit: REPORT in {test}: {text.strip()}")
    if bad:
        print(f"kunit: FAIL: {len(bad)} kernel report lines in {log}")
        return 1
    print("kunit: no kernel reports (KASAN, UBSAN, lockdep, debugobjects, WARN, BUG)"
          + (f", {len(reports)} known upstream report lines" if reports else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
