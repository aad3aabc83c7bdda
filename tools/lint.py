#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Style checks of the TAS series, run in the assembled kernel tree.

  checkpatch   scripts/checkpatch.pl --strict on every patch of patches/:
               0 errors, 0 warnings; a CHECK passes only where series.yaml
               lists its type under the patch's checkpatch_allow (and the
               commit message says why). So does the one WARNING that needs
               history the base lacks: UNKNOWN_COMMIT_ID (the base is
               Debian's source tree in one commit, so checkpatch cannot look
               up the id of a Fixes: tag; it still checks the tag's form),
               and MISSING_FIXES_TAG where there is no id to name at all.
               New files must be covered by a MAINTAINERS entry
               (get_maintainer.pl), which is why checkpatch's generic
               FILE_PATH_CHANGES reminder is not needed.
  rustfmt      rustfmt --check with the kernel's .rustfmt.toml on our .rs files
  kernel-doc   scripts/kernel-doc -none -Wall on our C sources and headers: no
               warning that the base does not already have
  clippy       a CLIPPY=1 build of the KUnit (UML) tree: no clippy or rustc
               warning in our files
  htmldocs     make htmldocs SPHINXDIRS=gpu (the chapter our pages, the uAPI
               header's and the trace events' kernel-doc are in): no warning
               in a file the series adds, and none in a file it edits that
               the base's build does not have too (the base is built only
               when there is such a warning to compare)
  errnos       docs/uapi-errors.md, the table tas-fuzz checks every errno
               against, lists for each tas ioctl exactly the errors that
               the "Errors:" part of its description in the uAPI header
               names
"""

import os
import re
import subprocess
import sys

import series as series_py  # tools/series.py
from series import added_files, edited_files

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.environ["TAS_CACHE"]
TREE = os.environ["TAS_TREE"]
BASE = os.environ["TAS_BASE"]
OUT = os.environ["TAS_OUT"]


def series():
    return series_py.load()


def run(cmd, cwd=TREE, **kw):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, **kw)


# Warnings that need the upstream history, which the base tree does not have.
HISTORY_WARNINGS = {"UNKNOWN_COMMIT_ID", "MISSING_FIXES_TAG"}


def checkpatch():
    s = series()
    pdir = os.path.join(ROOT, "patches")
    # The patches of each set (patches/K-NAME/), sets in order.
    dirs = sorted((d for d in os.listdir(pdir)
                   if os.path.isdir(os.path.join(pdir, d))),
                  key=lambda d: int(d.split("-", 1)[0]) if d[:1].isdigit() else 0)
    files = [os.path.join(d, f) for d in [""] + dirs
             for f in sorted(os.listdir(os.path.join(pdir, d)))
             if f.endswith(".patch") and not re.match(r"(v\d+-)?0000-", f)]
    if len(files) != len(s["patches"]):
        print("checkpatch: patches/ does not match series.yaml; run make series")
        return 1
    bad = 0
    for f, p in zip(files, s["patches"]):
        allow = set(p.get("checkpatch_allow") or [])
        r = run(["scripts/checkpatch.pl", "--strict", "--show-types",
                 "--ignore", "FILE_PATH_CHANGES", os.path.join(pdir, f)])
        problems = []
        allowed = []
        for m in re.finditer(r"^(ERROR|WARNING|CHECK):([A-Z_]+):(.*)$",
                             r.stdout, re.M):
            kind, typ, msg = m.groups()
            if typ in allow and (kind == "CHECK" or typ in HISTORY_WARNINGS):
                allowed.append(typ)
            else:
                problems.append(f"{kind}:{typ}:{msg}")
        summary = re.search(r"^total: .*$", r.stdout, re.M)
        summary = summary.group(0) if summary else "no summary"
        note = f" ({len(allowed)} justified: {', '.join(sorted(set(allowed)))})" \
            if allowed else ""
        print(f"checkpatch: {f}: {summary}{note}")
        counts = re.match(r"total: (\d+) errors, (\d+) warnings", summary)
        allowed_warnings = sum(1 for t in allowed if t in HISTORY_WARNINGS)
        if problems or not counts or int(counts.group(1)) or \
                int(counts.group(2)) != allowed_warnings:
            bad += 1
            print(r.stdout)
        if r.returncode and not problems and not allowed:
            bad += 1
            print(r.stdout + r.stderr)
    # Every new file has a maintainer (the reason FILE_PATH_CHANGES is ignored).
    for path in added_files(s):
        r = run(["scripts/get_maintainer.pl", "--no-git", "--no-git-fallback",
                 "--sections", "-f", path])
        sections = [l for l in r.stdout.splitlines()
                    if l and not l.startswith(("\t", " ")) and ":" not in l[:2]
                    and l.strip() == l and "@" not in l]
        if not any(sec != "THE REST" for sec in sections):
            bad += 1
            print(f"checkpatch: {path} is not covered by a MAINTAINERS entry")
    print(f"checkpatch: {len(files)} patches, "
          f"{'FAIL' if bad else 'clean'} (--strict)")
    return 1 if bad else 0


def rustfmt():
    s = series()
    rs = [os.path.join(TREE, f) for f in added_files(s) + edited_files(s)
          if f.endswith(".rs")]
    if not rs:
        print("rustfmt: no Rust files in the series")
        return 0
    r = run(["/usr/bin/rustfmt", "--check", "--edition", "2021",
             "--config-path", os.path.join(TREE, ".rustfmt.toml"), *rs])
    if r.returncode:
        print(r.stdout + r.stderr)
        print(f"rustfmt: FAIL on {len(rs)} files")
        return 1
    print(f"rustfmt: {len(rs)} files clean")
    return 0


def kernel_doc_warnings(tree, path):
    r = run(["scripts/kernel-doc", "-none", "-Wall", path], cwd=tree)
    out = []
    for line in (r.stdout + r.stderr).splitlines():
        if "warning" in line.lower() or "error" in line.lower():
            out.append(re.sub(r":\d+(:| )", ": ", line).strip())
    return out


def kernel_doc():
    s = series()
    paths = [f for f in added_files(s) + edited_files(s)
             if f.endswith((".c", ".h"))]
    bad = 0
    for path in paths:
        new = kernel_doc_warnings(TREE, path)
        old = kernel_doc_warnings(BASE, path) \
            if os.path.exists(os.path.join(BASE, path)) else []
        added = [w for w in new if w not in old]
        if added:
            bad += 1
            print(f"kernel-doc: {path}:")
            for w in added:
                print(f"  {w}")
    print(f"kernel-doc: {len(paths)} files, "
          f"{'FAIL' if bad else 'no new warnings'}")
    return 1 if bad else 0


def clippy():
    s = series()
    ours = [f for f in added_files(s) + edited_files(s) if f.endswith(".rs")]
    # The UML KUnit tree to rebuild: `make kunit`'s, or with
    # TAS_CLIPPY_BUILD=kunit-debug (make check) the debug one, which is the
    # only UML tree make check builds.
    name = os.environ.get("TAS_CLIPPY_BUILD", "kunit")
    configs = {"kunit": ".kunitconfig", "kunit-debug": "debug.kunitconfig"}
    if name not in configs:
        print(f"clippy: FAIL: TAS_CLIPPY_BUILD is one of {', '.join(configs)}")
        return 1
    build = os.path.join(OUT, name)
    if not os.path.exists(os.path.join(build, ".config")):
        r = subprocess.run([os.path.join(ROOT, "tools", "kunit.sh"), "--build-only",
                            os.path.join(ROOT, "kunit", configs[name]), name])
        if r.returncode:
            print("clippy: FAIL: the KUnit tree does not build")
            return 1
    # Make sure our crates are compiled (and linted) again.
    for f in ours:
        os.utime(os.path.join(TREE, f))
    kmake = os.environ["TAS_KMAKE_STR"].split()
    r = run(["make", "ARCH=um", f"O={build}", f"-j{os.cpu_count()}", "V=0",
             *kmake, "all"])
    text = r.stdout + r.stderr
    if r.returncode:
        print(text[-6000:])
        print("clippy: FAIL: build failed")
        return 1
    # Every Rust file of ours belongs to a crate that went through clippy: a
    # crate object (rust/kernel.o) covers its directory (rust/kernel/), a
    # driver's object the files beside it.
    linted = set(re.findall(r"^\s*CLIPPY\s+(?:\[M\]\s+|L\s+)?(\S+)\.o$", text, re.M))

    def covered(f):
        return any(f.startswith(t + "/") or os.path.dirname(f) == os.path.dirname(t)
                   for t in linted)
    missed = sorted(f for f in ours if not covered(f))
    if missed:
        print(f"clippy: FAIL: not compiled in the KUnit configuration: {', '.join(missed)}")
        return 1
    warnings = [m.group(0) for m in re.finditer(r"^(warning|error)(\[\S+\])?: .*$",
                                                text, re.M)]
    if warnings:
        print(text[-8000:])
        print(f"clippy: FAIL: {len(warnings)} warnings")
        return 1
    print(f"clippy: {len(ours)} Rust files rebuilt with CLIPPY=1, no warnings")
    return 0


def header_errors(path):
    """{ioctl: set of errnos} from the "Errors:" parts of the ioctl DOC."""
    text = open(path).read()
    doc = text[text.index("DOC: TAS ioctls"):]
    doc = doc[:doc.index("*/")]
    doc = re.sub(r"\n \*( |$)", "\n", doc, flags=re.M)
    found = {}
    for name, body in re.findall(r"\.\. c:macro:: (\S+)\n(.*?)(?=\.\. c:macro::|\Z)",
                                 doc, flags=re.S):
        if "Errors:" not in body:
            found[name] = None
            continue
        found[name] = set(re.findall(r"-(E[A-Z0-9]+)\b",
                                     body[body.index("Errors:"):]))
    return found


def table_errors(path):
    rows = {}
    for line in open(path):
        m = re.match(r"\| (DRM_IOCTL_\w+) \| ([A-Z0-9 ]+) \|$", line.strip())
        if m:
            rows[m.group(1)] = set(m.group(2).split())
    return rows


def errnos():
    header = header_errors(os.path.join(ROOT, "include-uapi/tas_drm.h"))
    table = table_errors(os.path.join(ROOT, "docs/uapi-errors.md"))
    bad = 0
    for name, errs in sorted(header.items()):
        if errs is None:
            print(f"errnos: {name}: its description has no 'Errors:' list")
            bad += 1
        elif name not in table:
            print(f"errnos: docs/uapi-errors.md has no row for {name}")
            bad += 1
        elif errs != table[name]:
            print(f"errnos: {name}: header {' '.join(sorted(errs))}, "
                  f"table {' '.join(sorted(table[name]))}")
            bad += 1
    for name in sorted(set(table) - set(header)):
        if name.startswith("DRM_IOCTL_TAS_"):
            print(f"errnos: {name} is in the table, not in the header")
            bad += 1
    if bad:
        print(f"errnos: FAIL: {bad} differences")
        return 1
    print(f"errnos: {len(header)} tas ioctls, the header and "
          f"docs/uapi-errors.md agree")
    return 0


def htmldocs_warnings(tree, build, paths):
    """Warnings of `make htmldocs SPHINXDIRS=gpu` in tree that name one of
    paths, without line numbers; None if the build fails."""
    r = run(["make", f"O={build}", "SPHINXDIRS=gpu", "htmldocs"], cwd=tree)
    text = r.stdout + r.stderr
    if r.returncode:
        print(text[-4000:])
        return None
    out = []
    for line in text.splitlines():
        if not re.search(r"\b(WARNING|ERROR|warning|error)\b", line):
            continue
        line = line.replace(tree + "/", "")
        if any(p in line for p in paths):
            out.append(re.sub(r":\d+(:| )", ": ", line).strip())
    return out


def htmldocs():
    s = series()
    added, edited = added_files(s), edited_files(s)
    ours = [f for f in added + edited if f not in ("MAINTAINERS",)]
    new = htmldocs_warnings(TREE, os.path.join(OUT, "htmldocs"), ours)
    if new is None:
        print("htmldocs: FAIL: make htmldocs SPHINXDIRS=gpu failed")
        return 1
    bad = [w for w in new if any(a in w for a in added)]
    rest = [w for w in new if w not in bad]
    if rest:
        old = htmldocs_warnings(BASE, os.path.join(OUT, "htmldocs-base"), ours)
        if old is None:
            print("htmldocs: FAIL: the base's make htmldocs failed")
            return 1
        bad += [w for w in rest if w not in old]
    for w in bad:
        print(f"  {w}")
    print(f"htmldocs: Documentation/gpu built, "
          f"{'FAIL' if bad else 'no new warnings'}"
          f"{f' ({len(bad)})' if bad else ''}")
    return 1 if bad else 0


def main():
    cmds = {"checkpatch": checkpatch, "rustfmt": rustfmt,
            "kernel-doc": kernel_doc, "clippy": clippy, "htmldocs": htmldocs,
            "errnos": errnos}
    if len(sys.argv) != 2 or sys.argv[1] not in cmds:
        print(f"usage: lint.py {{{','.join(cmds)}}}", file=sys.stderr)
        return 2
    return cmds[sys.argv[1]]()


if __name__ == "__main__":
    sys.exit(main())
