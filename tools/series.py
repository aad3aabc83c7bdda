#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Assemble the TAS patch series from series.yaml.

Every patch of series.yaml becomes one commit on top of the base kernel tree:
the files it adds are copied from the repository, the edits it makes to
existing kernel files are applied as diffs. The commits are built with git
plumbing in a private index, so the work tree of the kernel tree is only
updated at the end, and only where a file really changed: incremental kernel
builds stay incremental.

A file the series adds can grow across patches: series.yaml names it in the
patch that adds it, and marker lines in the repository's copy (always the
final version, the one developers edit and build) say which lines arrive in
a later patch or leave in one:

    // series: from ID      the lines up to the matching end arrive in patch ID
    // series: until ID     the lines up to the matching end leave in patch ID
    // series: end

ID is the id: of a patch in series.yaml; blocks nest; the comment leader may
be //, #, /* (closed by */ on the same line), * (a line inside a C block
comment, such as a DOC: section) or .. (reStructuredText). The
marker lines themselves never reach a patch. Every patch after the one adding
a file updates it when its version there differs.

The commits carry a fixed identity and fixed dates, and the patches are
written with --zero-commit and rewritten Message-Ids, so that assembling the
same sources twice gives byte-identical patches/.

Sub-commands:
  assemble [--out DIR] [--no-checkout]   build the commits, write the patches
  list                                   print "N<TAB>subject" per patch
  files                                  kernel paths the series adds or edits
  commit N                               print the commit id of patch N
  show N PATH                            print repository file PATH as patch N has it
"""

import argparse
import datetime
import email.utils
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.environ.get("TAS_CACHE") or os.path.join(
    os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "tas")
BASE = os.path.join(CACHE, "base")
TREE = os.environ.get("TAS_TREE") or os.path.join(CACHE, "tree")

DEFAULT_IDENTITY = "TAS Developers <tas-devel@example.org>"


def die(msg):
    print(f"series: {msg}", file=sys.stderr)
    sys.exit(1)


def git(*args, cwd=TREE, env=None, input=None, check=True):
    full_env = dict(os.environ)
    full_env.update({"LC_ALL": "C", "GIT_CONFIG_NOSYSTEM": "1",
                     "GIT_CONFIG_GLOBAL": "/dev/null"})
    name, email = identity()
    full_env.update({"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email,
                     "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email})
    if env:
        full_env.update(env)
    r = subprocess.run(["git", *args], cwd=cwd, env=full_env, input=input,
                       capture_output=True, text=True)
    if check and r.returncode != 0:
        die(f"git {' '.join(args)} failed:\n{r.stderr}")
    return r.stdout


MARKER = re.compile(
    r"^\s*(?://|#|/\*|\*|\.\.)\s*series:\s*(?:(from|until)\s+([A-Za-z0-9_-]+)|(end))"
    r"\s*(?:\*/)?\s*$")


def stage(s, src, n):
    """The text of repository file src as patch n (1-based) adds it."""
    with open(os.path.join(ROOT, src)) as f:
        return stage_text(s["_ids"], f.read(), n, src)


def stage_text(ids, text, n, src):
    """text as patch n has it, given the patch numbers of the ids."""
    lines = text.splitlines(keepends=True)
    out, stack = [], []
    for ln, line in enumerate(lines, 1):
        m = MARKER.match(line)
        if not m:
            if all(stack):
                out.append(line)
            continue
        if m.group(3):
            if not stack:
                die(f"{src}:{ln}: 'series: end' without a block")
            stack.pop()
            continue
        kind, pid = m.group(1), m.group(2)
        if pid not in ids:
            die(f"{src}:{ln}: no patch has id {pid!r}")
        stack.append(n >= ids[pid] if kind == "from" else n < ids[pid])
    if stack:
        die(f"{src}: {len(stack)} 'series:' block(s) without an end")
    return "".join(out)


def layout_errors(text, src):
    """Blank-line faults that a staged C, header or Rust file must not have:
    two blank lines in a row, or a closing brace followed directly by the next
    item. A marker block that leaves one of them in a stage without it lacks
    its own edge blank line (see docs/design.md)."""
    errs = []
    lines = text.split("\n")
    starts = ("static ", "FIXTURE", "TEST", "/*", "#define", "enum ", "struct ",
              "fn ", "pub", "impl", "///", "#[", "const ", "use ", "mod ")
    for i in range(1, len(lines)):
        if lines[i] == "" and lines[i - 1] == "" and i < len(lines) - 1:
            errs.append(f"{src}:{i + 1}: two blank lines")
        if lines[i - 1] in ("}", "};") and lines[i].startswith(starts):
            errs.append(f"{src}:{i + 1}: no blank line after '}}'")
    return errs


def check_layout(s):
    """Runs layout_errors() on every stage of every C, header and Rust file
    of the series that has staging markers; returns the faults, with their
    patch numbers."""
    errs = []
    n = len(s["patches"])
    for src in sorted({f for p in s["patches"] for f in (p.get("files") or {})}):
        if not src.endswith((".c", ".h", ".rs")):
            continue
        with open(os.path.join(ROOT, src)) as f:
            text = f.read()
        if not any(MARKER.match(line) for line in text.splitlines()):
            continue
        seen = set()
        for i in range(1, n + 1):
            staged = stage_text(s["_ids"], text, i, src)
            if staged not in seen:
                seen.add(staged)
                errs += [f"patch {i}: {e}" for e in layout_errors(staged, src)]
    return errs


def load():
    with open(os.path.join(ROOT, "series.yaml")) as f:
        s = yaml.safe_load(f)
    s["_ids"] = {}
    for i, p in enumerate(s["patches"], 1):
        if "id" in p:
            if p["id"] in s["_ids"]:
                die(f"patch {i}: id {p['id']!r} is also patch {s['_ids'][p['id']]}'s")
            s["_ids"][p["id"]] = i
    first = {}
    for i, p in enumerate(s["patches"], 1):
        if len(p["subject"]) > 75:
            die(f"patch {i}: subject longer than 75 characters")
        for src in (p.get("files") or {}):
            if not os.path.isfile(os.path.join(ROOT, src)):
                die(f"patch {i}: missing file {src}")
            if src in first:
                die(f"patch {i}: {src} is added by patch {first[src]} already")
            first[src] = i
        for d in p.get("edits") or []:
            if not os.path.isfile(os.path.join(ROOT, d)):
                die(f"patch {i}: missing edit {d}")
    return s


def added_files(s):
    """Kernel paths of the new files the series adds, in series order."""
    return [dst for p in s["patches"] for dst in (p.get("files") or {}).values()]


def edited_files(s):
    """Kernel paths of the existing files the series' edits change."""
    out = []
    for p in s["patches"]:
        for d in p.get("edits") or []:
            with open(os.path.join(ROOT, d)) as f:
                out += [x for x in re.findall(r"^\+\+\+ b/(\S+)", f.read(), re.M)
                        if x not in out]
    return out


def identity():
    ident = os.environ.get("TAS_IDENTITY", DEFAULT_IDENTITY)
    m = re.fullmatch(r"\s*(.+?)\s*<([^>]+)>\s*", ident)
    if not m:
        die(f"TAS_IDENTITY must look like 'Name <email>', not {ident!r}")
    return m.group(1), m.group(2)


def ensure_tree():
    if not os.path.isdir(os.path.join(BASE, ".git")):
        die(f"no base tree in {BASE}: run 'make setup'")
    if not os.path.isdir(os.path.join(TREE, ".git")):
        print(f"series: cloning the base into {TREE}", file=sys.stderr)
        subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout",
                        BASE, TREE], check=True)
        git("checkout", "-q", "-B", "series", "origin/base")
    else:
        git("fetch", "-q", BASE, "+base:refs/remotes/origin/base")
    return git("rev-parse", "origin/base").strip()


def build_commits(s, base):
    name, email = identity()
    date0 = int(s.get("date_epoch", 1767225600))
    fd, index = tempfile.mkstemp(prefix="tas-index-")
    os.close(fd)
    os.unlink(index)
    env = {"GIT_INDEX_FILE": index}
    commits = []
    try:
        git("read-tree", base, env=env)
        parent = base
        # src -> [dst, its text in the repository, as the last patch had it]
        added = {}
        for i, p in enumerate(s["patches"], 1):
            for src, dst in (p.get("files") or {}).items():
                with open(os.path.join(ROOT, src)) as f:
                    added[src] = [dst, f.read(), None]
            # New files, and added files whose staged text changes here.
            for src, ent in added.items():
                text = stage_text(s["_ids"], ent[1], i, src)
                if text == ent[2]:
                    continue
                ent[2] = text
                path = os.path.join(ROOT, src)
                blob = git("hash-object", "-w", "--stdin", input=text).strip()
                mode = "100755" if os.access(path, os.X_OK) else "100644"
                git("update-index", "--add", "--cacheinfo",
                    f"{mode},{blob},{ent[0]}", env=env)
            for d in p.get("edits") or []:
                r = subprocess.run(
                    ["git", "apply", "--cached", "--whitespace=error-all",
                     os.path.join(ROOT, d)], cwd=TREE,
                    env={**os.environ, **env}, capture_output=True, text=True)
                if r.returncode:
                    die(f"patch {i}: {d} does not apply:\n{r.stderr}")
            tree = git("write-tree", env=env).strip()
            msg = p["subject"].strip() + "\n\n" + p["body"].strip() + "\n"
            trailers = p.get("trailers") or []
            msg += "\n" + "".join(t + "\n" for t in trailers)
            msg += f"Signed-off-by: {name} <{email}>\n"
            date = f"{date0 + 60 * i} +0000"
            cenv = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email,
                    "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_NAME": name,
                    "GIT_COMMITTER_EMAIL": email, "GIT_COMMITTER_DATE": date}
            parent = git("commit-tree", tree, "-p", parent, "-F", "-",
                         env=cenv, input=msg).strip()
            commits.append(parent)
    finally:
        if os.path.exists(index):
            os.unlink(index)
    return commits


def msgid(s, n, text):
    h = hashlib.sha256(text.encode()).hexdigest()[:12]
    v = s.get("version", 1)
    return f"<tas-v{v}-{n:02d}-{h}@{s.get('msgid_domain', 'tas.invalid')}>"


def write_patches(s, base, head, out):
    tmp = tempfile.mkdtemp(prefix="tas-fp-")
    try:
        v = int(s.get("version", 1))
        args = ["-c", "core.abbrev=12", "-c", "diff.algorithm=myers",
                "-c", "diff.renames=false", "format-patch", "-q",
                "--zero-commit", "--cover-letter", "--thread=shallow",
                "--no-signature", "--subject-prefix",
                s.get("subject_prefix", "PATCH"), "-o", tmp]
        if v > 1:
            args.append(f"-v{v}")
        git(*args, f"{base}..{head}")
        files = sorted(f for f in os.listdir(tmp) if f.endswith(".patch"))
        texts = [open(os.path.join(tmp, f)).read() for f in files]
    finally:
        shutil.rmtree(tmp)

    cover = s["cover"]
    name, email = identity()
    # The cover letter: our subject and text, git's shortlog and diffstat.
    t = texts[0]
    t = t.replace("*** SUBJECT HERE ***", cover["subject"].strip())
    t = t.replace("*** BLURB HERE ***", cover["body"].strip())
    date0 = int(s.get("date_epoch", 1767225600))
    t = re.sub(r"^Date: .*$", "Date: " + rfc2822(date0), t, count=1,
               flags=re.M)
    texts[0] = t

    ids = [msgid(s, n, re.sub(r"^(Message-ID|In-Reply-To|References): .*\n",
                              "", t, flags=re.M | re.I))
           for n, t in enumerate(texts)]
    out_texts = []
    for n, t in enumerate(texts):
        t = re.sub(r"^Message-ID: .*$", f"Message-ID: {ids[n]}", t, count=1,
                   flags=re.M | re.I)
        t = re.sub(r"^(In-Reply-To|References): .*$",
                   lambda m: f"{m.group(1)}: {ids[0]}", t, flags=re.M | re.I)
        out_texts.append(t)

    os.makedirs(out, exist_ok=True)
    for f in os.listdir(out):
        if f.endswith(".patch") or f == "series.mbox":
            os.unlink(os.path.join(out, f))
    for f, t in zip(files, out_texts):
        with open(os.path.join(out, f), "w") as fh:
            fh.write(t)
    with open(os.path.join(out, "series.mbox"), "w") as fh:
        fh.write("".join(t if t.endswith("\n\n") else t + "\n"
                         for t in out_texts))
    return files


def rfc2822(epoch):
    return email.utils.format_datetime(
        datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc))


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("assemble")
    a.add_argument("--out", default=os.path.join(ROOT, "patches"))
    a.add_argument("--no-checkout", action="store_true")
    sub.add_parser("list")
    sub.add_parser("files")
    c = sub.add_parser("commit")
    c.add_argument("n", type=int)
    sh = sub.add_parser("show")
    sh.add_argument("n", type=int)
    sh.add_argument("path")
    sub.add_parser("check-layout")
    args = ap.parse_args()

    s = load()
    if args.cmd == "check-layout":
        errs = check_layout(s)
        for e in errs:
            print(e)
        if errs:
            sys.exit(1)
        return
    if args.cmd == "list":
        for i, p in enumerate(s["patches"], 1):
            print(f"{i}\t{p['subject']}")
        return
    if args.cmd == "show":
        sys.stdout.write(stage(s, args.path, args.n))
        return
    if args.cmd == "files":
        paths = added_files(s)
        print("\n".join(paths + [x for x in edited_files(s) if x not in paths]))
        return
    base = ensure_tree()
    if args.cmd == "commit":
        if args.n == 0:
            print(base)
            return
        print(git("rev-parse", f"refs/tas/p{args.n}").strip())
        return

    commits = build_commits(s, base)
    files = write_patches(s, base, commits[-1], args.out)
    if not args.no_checkout:
        for i, c in enumerate(commits, 1):
            git("update-ref", f"refs/tas/p{i}", c)
        for ref in git("for-each-ref", "--format=%(refname)",
                       "refs/tas/").split():
            n = int(ref.rsplit("p", 1)[1])
            if n > len(commits):
                git("update-ref", "-d", ref)
        # Only files that differ from the current checkout are rewritten.
        git("checkout", "-q", "-f", "-B", "series", commits[-1])
    tree = git("rev-parse", commits[-1] + "^{tree}").strip()
    print(f"series: {len(commits)} patches + cover letter in {args.out} "
          f"({len(files)} files, series.mbox), tree {tree}")


if __name__ == "__main__":
    main()
