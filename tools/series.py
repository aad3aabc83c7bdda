#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Assemble the TAS patch series from series.yaml and series/.

The series is kept the way kernel developers keep a quilt stack: one diff
per patch in series/, the source of truth of every intermediate version,
and series.yaml as the index (base, cover letter, and per patch its
subject, commit message and diff). The repository's source folders
(rust-kernel/, drivers-gpu-drm-tas/, ...) hold the files the series adds as
they are at its end, the code that developers read, edit and build;
series.yaml's files: maps each one to its kernel path, and every command
checks that the end of the diffs and the source folders agree.

Every patch becomes one commit on top of the base kernel tree, built with
git plumbing in a private index (git apply --cached, git commit-tree), so
the work tree of the kernel tree is only updated at the end, and only where
a file really changed: incremental kernel builds stay incremental.

A change made in a source folder is "not folded" until a patch holds it:

  fold N [PATH...]
                fold it (or its PATHs only) into patch N: a three-way merge
                of the change onto patch N, and of every later patch onto
                the result, as `git commit --fixup` and `git rebase
                --autosquash` would do; it stops at a conflict and rewrites
                the diffs that change
  import [REV]  take the series back from a branch of the kernel tree
                made from its branch `series` (which every build resets:
                `git checkout -b mine series`) and edited with git (commit
                --fixup, rebase -i --autosquash): one commit per patch, in
                series.yaml's order and with its subjects; refused while
                the source folders hold unfolded changes; the diffs and the
                source folders are rewritten

Until then `assemble --wip` (what the build targets use) puts the change in
one commit on top of the series, and `assemble` without it (make series,
make series-check) fails.

The commits carry a fixed identity and fixed dates, and the patches are
written with --zero-commit and rewritten Message-Ids, so that assembling the
same sources twice gives byte-identical patches/.

Sub-commands:
  assemble [--out DIR] [--no-checkout] [--wip]  build the commits, write the patches
  fold N [PATH...]                       fold the source folders' change (of the
                                         PATHs only, if given) into patch N
  squash J I                             fold patch J into patch I (earlier or
                                         later), with its trailers
  import [REV]                           take the series back from a branch
  list                                   print "N<TAB>subject" per patch
  files                                  kernel paths the series adds or edits
  commit N                               print the commit id of patch N, built
                                         from series/ as it is now
  show N PATH                            print file PATH (repository or kernel
                                         path) as patch N has it
  to-cc                                  set each set's to and cc in series.yaml
                                         from scripts/get_maintainer.pl
  check-sets                             check that each set applies on the base
                                         with only the sets it depends on
  check-layout                           blank-line faults in any version of the
                                         C, header and Rust files the series adds
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
# The base commit, once ensure_tree() has looked it up.
BASE_COMMIT = None

DEFAULT_IDENTITY = "TAS Developers <tas-devel@example.org>"
WIP_SUBJECT = "WIP: changes not folded into a patch yet"
DIFF_CONFIG = ["-c", "core.abbrev=12", "-c", "diff.algorithm=myers",
               "-c", "diff.renames=false"]


def die(msg):
    print(f"series: {msg}", file=sys.stderr)
    sys.exit(1)


def git_env(env=None):
    """The environment of every git command: no user or system
    configuration (which could change diffs, merges or whitespace checks),
    the series' identity, and env on top."""
    full_env = dict(os.environ)
    full_env.update({"LC_ALL": "C", "GIT_CONFIG_NOSYSTEM": "1",
                     "GIT_CONFIG_GLOBAL": "/dev/null"})
    name, email = identity()
    full_env.update({"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email,
                     "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email})
    if env:
        full_env.update(env)
    return full_env


def git(*args, cwd=None, env=None, input=None, check=True):
    r = subprocess.run(["git", *args], cwd=cwd or TREE, env=git_env(env),
                       input=input, capture_output=True, text=True)
    if check and r.returncode != 0:
        die(f"git {' '.join(args)} failed:\n{r.stderr}")
    return r.stdout


def layout_errors(text, src):
    """Blank-line faults that a C, header or Rust file must not have: two
    blank lines in a row, or a closing brace followed directly by the next
    item. Intermediate versions that only a patch shows are checked for them
    too (check_layout())."""
    errs = []
    lines = text.split("\n")
    starts = ("static ", "FIXTURE", "TEST", "/*", "#define", "enum ", "struct ",
              "fn ", "pub", "impl", "///", "#[", "const ", "use ", "mod ")
    for i in range(1, len(lines)):
        if lines[i] == "" and lines[i - 1] == "" and i < len(lines) - 1:
            errs.append(f"{src}:{i + 1}: two blank lines")
        # A use list's "};" followed by the next use is rustfmt's layout.
        if lines[i - 1] == "};" and lines[i].startswith(("use ", "pub use ")):
            continue
        if lines[i - 1] in ("}", "};") and lines[i].startswith(starts):
            errs.append(f"{src}:{i + 1}: no blank line after '}}'")
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
    diffs = {}
    for i, p in enumerate(s["patches"], 1):
        if len(p["subject"]) > 75:
            die(f"patch {i}: subject longer than 75 characters")
        d = p.get("diff")
        if not d or not os.path.isfile(os.path.join(ROOT, d)):
            die(f"patch {i}: missing diff {d!r}")
        if d in diffs:
            die(f"patch {i}: {d} is patch {diffs[d]}'s diff already")
        diffs[d] = i
    s["files"] = s.get("files") or {}
    for src in s["files"]:
        if not os.path.isfile(os.path.join(ROOT, src)):
            die(f"files: missing {src}")
    return s


def diff_paths(s, p):
    """Kernel paths that patch p's diff changes, and those it adds."""
    with open(os.path.join(ROOT, p["diff"])) as f:
        text = f.read()
    paths = re.findall(r"^diff --git a/\S+ b/(\S+)$", text, re.M)
    new = set(re.findall(r"^diff --git a/\S+ b/(\S+)\nnew file mode", text, re.M))
    return paths, new


def added_files(s):
    """Kernel paths of the new files the series adds, in series order."""
    return list(s["files"].values())


def edited_files(s):
    """Kernel paths of the existing files the series' diffs change."""
    added = set(added_files(s))
    out = []
    for p in s["patches"]:
        out += [x for x in diff_paths(s, p)[0] if x not in added and x not in out]
    return out


def repo_path(s, path):
    """The repository path of a file the series adds, given either path."""
    if path in s["files"]:
        return path
    for src, dst in s["files"].items():
        if dst == path:
            return src
    return None
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
    global BASE_COMMIT
    BASE_COMMIT = git("rev-parse", "origin/base").strip()
    return BASE_COMMIT


def message(s, p):
    name, email = identity()
    msg = p["subject"].strip() + "\n\n" + p["body"].strip() + "\n"
    trailers = p.get("trailers") or []
    msg += "\n" + "".join(t + "\n" for t in trailers)
    msg += f"Signed-off-by: {name} <{email}>\n"
    return msg


def commit(s, tree, parent, i, msg):
    """A commit of patch i's fixed identity and date."""
    name, email = identity()
    date0 = int(s.get("date_epoch", 1767225600))
    date = f"{date0 + 60 * i} +0000"
    cenv = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email,
            "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_NAME": name,
            "GIT_COMMITTER_EMAIL": email, "GIT_COMMITTER_DATE": date}
    return git("commit-tree", tree, "-p", parent, "-F", "-", env=cenv,
               input=msg).strip()


class Index:
    """A private git index of the kernel tree."""

    def __init__(self, tree):
        fd, self.path = tempfile.mkstemp(prefix="tas-index-")
        os.close(fd)
        os.unlink(self.path)
        self.env = {"GIT_INDEX_FILE": self.path}
        git("read-tree", tree, env=self.env)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if os.path.exists(self.path):
            os.unlink(self.path)

    def apply(self, diff, what, check=True):
        """Applies diff to the index; returns whether it applied. Dies if
        it does not, unless check is False."""
        r = subprocess.run(["git", "apply", "--cached", "--whitespace=error-all",
                            diff], cwd=TREE, env=git_env(self.env),
                           capture_output=True, text=True)
        if r.returncode and check:
            die(f"{what}: {os.path.relpath(diff, ROOT)} does not apply:\n{r.stderr}")
        return r.returncode == 0

    def add(self, path, dst):
        blob = git("hash-object", "-w", path).strip()
        mode = "100755" if os.access(path, os.X_OK) else "100644"
        git("update-index", "--add", "--cacheinfo", f"{mode},{blob},{dst}",
            env=self.env)

    def write_tree(self):
        return git("write-tree", env=self.env).strip()


def build_commits(s, base):
    commits = []
    with Index(base) as idx:
        parent = base
        for i, p in enumerate(s["patches"], 1):
            idx.apply(os.path.join(ROOT, p["diff"]), f"patch {i}")
            parent = commit(s, idx.write_tree(), parent, i, message(s, p))
            commits.append(parent)
    return commits


def unfolded(s, head):
    """Repository paths of the files the series adds whose source-folder
    copy differs from their version at head."""
    dsts = list(s["files"].values())
    have = {}
    for line in git("ls-tree", "-r", "--full-tree", head, "--", *dsts).splitlines():
        meta, path = line.split("\t", 1)
        mode, _, blob = meta.split()
        have[path] = (mode, blob)
    out = []
    for src, dst in s["files"].items():
        full = os.path.join(ROOT, src)
        mode = "100755" if os.access(full, os.X_OK) else "100644"
        blob = git("hash-object", full).strip()
        if have.get(dst) != (mode, blob):
            out.append(src)
    return out


def wip_commit(s, head, changed):
    """head with the source folders' copies of changed on top."""
    with Index(head) as idx:
        for src in changed:
            idx.add(os.path.join(ROOT, src), s["files"][src])
        tree = idx.write_tree()
    msg = WIP_SUBJECT + "\n\n" + "".join(f"{src}\n" for src in changed)
    return commit(s, tree, head, len(s["patches"]) + 1, msg)


def diff_text(a, b):
    """The diff from commit a to commit b as series/ keeps it: git's, with
    the base's .gitattributes, without the index lines, which would change
    with every earlier patch's blobs."""
    base = BASE_COMMIT or git("rev-parse", "origin/base").strip()
    text = git(f"--attr-source={base}", *DIFF_CONFIG, "diff", "--no-color",
               "--no-ext-diff", a, b)
    return re.sub(r"^index [0-9a-f]+\.\.[0-9a-f]+(?: [0-7]+)?\n", "", text,
                  flags=re.M)


def write_diff(s, i, a, b):
    """Writes patch i's diff from commits a..b; returns whether it changed."""
    text = diff_text(a, b)
    if not text:
        die(f"patch {i} would be empty")
    path = os.path.join(ROOT, s["patches"][i - 1]["diff"])
    old = None
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
    if old == text:
        return False
    with open(path, "w") as f:
        f.write(text)
    return True


def merge(base, ours, theirs, what):
    """The tree of ours with the change base..theirs merged in (three-way)."""
    r = subprocess.run(["git", "merge-tree", "--write-tree", "--name-only",
                        f"--merge-base={base}", ours, theirs], cwd=TREE,
                       env=git_env(), capture_output=True, text=True)
    if r.returncode == 1:
        files = r.stdout.split("\n\n")[0].splitlines()[1:]
        die(f"{what}: conflict in {', '.join(files) or '?'}; fold by hand: "
            f"`git rebase -i --autosquash` on the kernel tree's branch "
            f"`series`, then `tools/series.py import`")
    if r.returncode:
        die(f"git merge-tree failed:\n{r.stderr}")
    return r.stdout.splitlines()[0].strip()


def fold(s, base, n, paths=None):
    """Folds the source folders' change (of paths, if given) into patch n
    and carries the later patches over it; rewrites the diffs that change."""
    if not 1 <= n <= len(s["patches"]):
        die(f"no patch {n}")
    commits = build_commits(s, base)
    changed = unfolded(s, commits[-1])
    if paths:
        srcs = [repo_path(s, p) or p for p in paths]
        changed = [src for src in changed if src in srcs]
    if not changed:
        die("nothing to fold: the source folders are the series' end")
    dirty = wip_commit(s, commits[-1], changed)
    prev = [base] + commits
    new = prev[:n]
    tree = merge(commits[-1], commits[n - 1], dirty, f"patch {n}")
    new.append(commit(s, tree, new[-1], n, "fold"))
    for j in range(n + 1, len(commits) + 1):
        tree = merge(prev[j - 1], new[-1], commits[j - 1], f"patch {j}")
        new.append(commit(s, tree, new[-1], j, "carry"))
    want = git("rev-parse", dirty + "^{tree}").strip()
    got = git("rev-parse", new[-1] + "^{tree}").strip()
    if got != want:
        bad = git("diff", "--name-only", new[-1], dirty).split()
        die(f"a later patch undoes the change in {', '.join(bad)}: "
            f"fold it into a later patch")
    rewritten = [j for j in range(n, len(commits) + 1)
                 if write_diff(s, j, new[j - 1], new[j])]
    print(f"series: folded {', '.join(changed)} into patch {n}; diffs "
          f"rewritten: {', '.join(map(str, rewritten))}")


def yaml_entry(lines, subject):
    """The span [start, end) of the lines of series.yaml's patch entry whose
    subject is subject."""
    for start, line in enumerate(lines):
        if line.startswith("  - subject: ") and \
                yaml.safe_load(line[len("  - subject: "):]) == subject:
            break
    else:
        die(f"series.yaml has no patch entry with the subject {subject!r}")
    end = start + 1
    while end < len(lines) and not lines[end].startswith("  - subject: ") \
            and not lines[end][:1].isalnum():
        end += 1
    # Comments at its end belong to the entry that follows.
    while end > start + 1 and re.match(r" {0,4}#", lines[end - 1]):
        end -= 1
    return start, end


def add_trailers(lines, subject, trailers):
    """Adds trailers to the entry of subject in series.yaml's lines, after
    its own, if it has none of them yet."""
    start, end = yaml_entry(lines, subject)
    have = next((k for k in range(start, end)
                 if lines[k] == "    trailers:"), None)
    items = [f"      - {yaml.safe_dump(t, default_style=chr(39), width=1000).strip()}"
             for t in trailers]
    if have is None:
        # After the diff, where the other entries have them.
        at = next((k + 1 for k in range(start, end)
                   if lines[k].startswith("    diff: ")), start + 1)
        lines[at:at] = ["    trailers:"] + items
        return
    k = have + 1
    while k < end and lines[k].startswith("      - "):
        k += 1
    lines[k:k] = items


def squash(s, base, j, i):
    """Folds patch j into patch i and drops it from series.yaml. Into an
    earlier patch i: the patches between carry patch j's change, those after
    j keep their trees. Into a later patch i: the patches between go without
    it, patch i and those after it keep their trees. Patch i's message is
    left to edit."""
    n = len(s["patches"])
    if not (1 <= i <= n and 1 <= j <= n and i != j):
        die(f"squash needs two patches of 1 to {n}")
    gone, into = s["patches"][j - 1], s["patches"][i - 1]
    path = os.path.join(ROOT, "series.yaml")
    with open(path) as f:
        lines = f.read().split("\n")
    # Found before anything is written: a failure leaves everything as it was.
    start, end = yaml_entry(lines, gone["subject"])
    yaml_entry(lines, into["subject"])
    prev = [base] + build_commits(s, base)
    if j > i:
        # Patch j's change moves back onto patch i, the ones between carry it.
        new = prev[:i]
        tree = merge(prev[j - 1], prev[i], prev[j], f"patch {j} onto patch {i}")
        new.append(commit(s, tree, new[-1], i, "squash"))
        for k in range(i + 1, j):
            tree = merge(prev[k - 1], new[-1], prev[k], f"patch {k}")
            new.append(commit(s, tree, new[-1], k, "carry"))
        first, last = i, j - 1
    else:
        # Patch j's change arrives with patch i instead: the ones between
        # go without it, patch i's tree stays.
        new = prev[:j] + [prev[j - 1]]
        for k in range(j + 1, i):
            tree = merge(prev[k - 1], new[-1], prev[k], f"patch {k} without patch {j}")
            new.append(commit(s, tree, new[-1], k, "carry"))
        new.append(prev[i])
        first, last = j + 1, i
    if git("rev-parse", new[-1] + "^{tree}") != git("rev-parse", prev[last + 1 if j > i else i] + "^{tree}"):
        bad = git("diff", "--name-only", new[-1], prev[j]).split()
        die(f"the patches between {i} and {j} do not carry over patch {j} "
            f"in {', '.join(bad)}")
    # new[k] is patch k's new commit (new[j] repeats patch j - 1's when j < i).
    rewritten = [k for k in range(first, last + 1)
                 if write_diff(s, k, new[k - 1], new[k])]
    del lines[start:end]
    # Its trailers (a Fixes: tag, a reviewer's) go with its change.
    carried = [t for t in gone.get("trailers") or []
               if t not in (into.get("trailers") or [])]
    if carried:
        add_trailers(lines, into["subject"], carried)
    with open(path, "w") as f:
        f.write("\n".join(lines))
    os.unlink(os.path.join(ROOT, gone["diff"]))
    print(f"series: patch {j} ({gone['subject']}) folded into patch {i}; "
          f"diffs rewritten: {', '.join(map(str, rewritten))}; merge its "
          f"message into patch {i}'s")


def import_branch(s, base, rev):
    """Takes the series back from the kernel tree's commits base..rev."""
    commits = git("rev-list", "--reverse", "--first-parent",
                  f"{base}..{rev}").split()
    if commits and git("log", "-1", "--format=%s", commits[-1]).strip() == WIP_SUBJECT:
        die(f"{rev} ends in the commit of unfolded changes: fold it into a "
            f"patch or drop it first")
    if len(commits) != len(s["patches"]):
        die(f"{rev} has {len(commits)} commits on the base, series.yaml "
            f"{len(s['patches'])} patches: edit series.yaml's index first")
    for i, (c, p) in enumerate(zip(commits, s["patches"]), 1):
        if len(git("rev-list", "--parents", "-n", "1", c).split()) != 2:
            die(f"commit {i} ({c[:12]}) is a merge")
        subject = git("log", "-1", "--format=%s", c).strip()
        if subject != p["subject"].strip():
            die(f"commit {i} is {subject!r}, series.yaml's patch {i} "
                f"{p['subject']!r}")
        body = git("log", "-1", "--format=%B", c)
        if body.strip() != message(s, p).strip():
            print(f"series: note: commit {i}'s message differs from "
                  f"series.yaml's, which stays", file=sys.stderr)
    head = commits[-1]
    added = git("diff", "--name-only", "--diff-filter=A", base, head).split()
    stray = sorted(set(added) - set(s["files"].values()))
    if stray:
        die(f"new files without a repository copy (series.yaml files:): "
            f"{', '.join(stray)}")
    # The source folders' copies are overwritten below: a change in them that
    # no patch holds yet would be lost.
    changed = unfolded(s, build_commits(s, base)[-1])
    if changed:
        die(f"the source folders hold changes no patch has "
            f"({', '.join(changed)}): fold or drop them first")
    for i in range(1, len(commits) + 1):
        a = base if i == 1 else commits[i - 2]
        if not diff_text(a, commits[i - 1]):
            die(f"commit {i} is empty")
    rewritten = [i for i in range(1, len(commits) + 1)
                 if write_diff(s, i, ([base] + commits)[i - 1], commits[i - 1])]
    for src, dst in s["files"].items():
        full = os.path.join(ROOT, src)
        text = git("show", f"{head}:{dst}")
        with open(full) as f:
            same = f.read() == text
        if not same:
            with open(full, "w") as f:
                f.write(text)
    print(f"series: {len(commits)} patches imported from {rev}; diffs "
          f"rewritten: {', '.join(map(str, rewritten)) or 'none'}")


def check_layout(s, base):
    """Runs layout_errors() on every version of every C, header and Rust file
    the series adds; returns the faults, with their patch numbers."""
    errs, seen = [], set()
    commits = build_commits(s, base)
    ours = {dst for dst in s["files"].values() if dst.endswith((".c", ".h", ".rs"))}
    for i, (p, c) in enumerate(zip(s["patches"], commits), 1):
        for dst in diff_paths(s, p)[0]:
            if dst not in ours:
                continue
            text = git("show", f"{c}:{dst}")
            if text in seen:
                continue
            seen.add(text)
            errs += [f"patch {i}: {e}" for e in layout_errors(text, dst)]
    return errs


def msgid(s, n, text, k=None):
    h = hashlib.sha256(text.encode()).hexdigest()[:12]
    v = s.get("version", 1)
    part = f"{n:02d}" if k is None else f"{k}-{n:02d}"
    return f"<tas-v{v}-{part}-{h}@{s.get('msgid_domain', 'tas.invalid')}>"


def sets(s):
    """The sets the series is posted as: (index, set, first, last), the
    patches 1-based and inclusive. Without `sets:` in series.yaml, the whole
    series is one set with the top-level cover letter."""
    n = len(s["patches"])
    if "sets" not in s:
        return [(None, {"name": None, **s["cover"]}, 1, n)]
    by_name = {st["name"]: st for st in s["sets"]}
    starts = [(i, p["set"]) for i, p in enumerate(s["patches"], 1)
              if "set" in p]
    if not starts or starts[0][0] != 1:
        die("series.yaml: the first patch must start a set (set: NAME)")
    names = [name for _, name in starts]
    if names != [st["name"] for st in s["sets"]]:
        die(f"series.yaml: the patches start the sets {names}, in that "
            f"order, and sets: lists {[st['name'] for st in s['sets']]}")
    out = []
    for k, (first, name) in enumerate(starts, 1):
        last = starts[k][0] - 1 if k < len(starts) else n
        out.append((k, by_name[name], first, last))
    return out


def deps_closure(s, st):
    """The names of the sets that set st applies on: its deps (series.yaml
    `deps:`, sets listed before it) and theirs."""
    by_name = {x["name"]: x for x in s.get("sets") or []}
    order = [x["name"] for x in s.get("sets") or []]
    out, todo = set(), list(st.get("deps") or [])
    while todo:
        d = todo.pop()
        if d not in by_name or order.index(d) >= order.index(st["name"]):
            die(f"series.yaml: set {st['name']} depends on {d!r}, which is "
                f"not a set before it")
        if d not in out:
            out.add(d)
            todo += by_name[d].get("deps") or []
    return out


def patch_id(text):
    """git patch-id --stable of a patch's text."""
    return git("patch-id", "--stable", input=text).split()[0]


def format_set(s, base, commits, k, st, first, last, prereqs):
    """The texts of set k's cover letter and patches, with their file
    names; prereqs are the texts of the patches of the sets before it."""
    tmp = tempfile.mkdtemp(prefix="tas-fp-")
    try:
        v = int(s.get("version", 1))
        prefix = st.get("subject_prefix", s.get("subject_prefix", "PATCH"))
        # The kernel's .gitattributes (diff drivers for hunk headers) are
        # read from the base, whatever the kernel tree has checked out.
        args = [f"--attr-source={base}", *DIFF_CONFIG, "format-patch", "-q",
                "--zero-commit", "--cover-letter", "--thread=shallow",
                "--no-signature", "--subject-prefix", prefix, "-o", tmp]
        for to in st.get("to") or []:
            args += ["--to", to]
        for cc in st.get("cc") or []:
            args += ["--cc", cc]
        if v > 1:
            args.append(f"-v{v}")
        start = base if first == 1 else commits[first - 2]
        git(*args, f"{start}..{commits[last - 1]}")
        files = sorted(f for f in os.listdir(tmp) if f.endswith(".patch"))
        texts = [open(os.path.join(tmp, f)).read() for f in files]
    finally:
        shutil.rmtree(tmp)

    # The cover letter: our subject and text, git's shortlog and diffstat,
    # and the patches this set applies on top of, as b4 prep names them.
    t = texts[0]
    t = t.replace("*** SUBJECT HERE ***", st["subject"].strip())
    t = t.replace("*** BLURB HERE ***", st["body"].strip())
    date0 = int(s.get("date_epoch", 1767225600))
    t = re.sub(r"^Date: .*$", "Date: " + rfc2822(date0), t, count=1,
               flags=re.M)
    if prereqs:
        t = t.rstrip("\n") + "\n\n" + "".join(
            f"prerequisite-patch-id: {patch_id(p)}\n" for p in prereqs)
    texts[0] = t

    ids = [msgid(s, n, re.sub(r"^(Message-ID|In-Reply-To|References): .*\n",
                              "", t, flags=re.M | re.I), k)
           for n, t in enumerate(texts)]
    out_texts = []
    for n, t in enumerate(texts):
        t = re.sub(r"^Message-ID: .*$", f"Message-ID: {ids[n]}", t, count=1,
                   flags=re.M | re.I)
        t = re.sub(r"^(In-Reply-To|References): .*$",
                   lambda m: f"{m.group(1)}: {ids[0]}", t, flags=re.M | re.I)
        out_texts.append(t)
    return files, out_texts


def write_patches(s, base, commits, out):
    """Writes each set's cover letter, patches and series.mbox: into out,
    or with sets into out/K-NAME/. Returns the files written, relative to
    out."""
    os.makedirs(out, exist_ok=True)
    for f in os.listdir(out):
        full = os.path.join(out, f)
        if f.endswith(".patch") or f == "series.mbox":
            os.unlink(full)
        elif os.path.isdir(full) and re.match(r"\d+-", f):
            shutil.rmtree(full)
    written, texts_of = [], {}
    for k, st, first, last in sets(s):
        need = deps_closure(s, st)
        prereqs = [t for name in texts_of if name in need
                   for t in texts_of[name]]
        files, texts = format_set(s, base, commits, k, st, first, last,
                                  prereqs)
        sub = "" if k is None else f"{k}-{st['name']}"
        d = os.path.join(out, sub)
        os.makedirs(d, exist_ok=True)
        for f, t in zip(files, texts):
            with open(os.path.join(d, f), "w") as fh:
                fh.write(t)
            written.append(os.path.join(sub, f))
        with open(os.path.join(d, "series.mbox"), "w") as fh:
            fh.write("".join(t if t.endswith("\n\n") else t + "\n"
                             for t in texts))
        texts_of[st["name"]] = texts[1:]
    return written


def to_cc(s, base, commits):
    """Sets each set's to and cc in series.yaml from
    scripts/get_maintainer.pl on its patches: the maintainers as To, the
    reviewers and lists as Cc. Run in the kernel tree checked out at the
    series' end (`make series`), whose MAINTAINERS has the series' entries.
    A set's extra_to and extra_cc are added."""
    if git("rev-parse", "HEAD^{tree}").strip() != \
            git("rev-parse", commits[-1] + "^{tree}").strip():
        die(f"the kernel tree {TREE} is not checked out at the series' end: "
            f"run `make series` first")
    path = os.path.join(ROOT, "series.yaml")
    with open(path) as f:
        lines = f.read().split("\n")
    for k, st, first, last in sets(s):
        if k is None:
            die("series.yaml has no sets")
        bare = {kk: vv for kk, vv in st.items() if kk not in ("to", "cc")}
        files, texts = format_set(s, base, commits, k, bare, first, last, [])
        tmp = tempfile.mkdtemp(prefix="tas-gm-")
        try:
            paths = []
            for f, t in zip(files[1:], texts[1:]):
                paths.append(os.path.join(tmp, f))
                with open(paths[-1], "w") as fh:
                    fh.write(t)
            common = ["perl", "scripts/get_maintainer.pl", "--no-rolestats",
                      "--no-git", "--no-git-fallback", "--no-tree"]
            to = git_lines(common + ["--m", "--no-r", "--no-l"] + paths)
            cc = [a for a in git_lines(common + ["--r", "--l", "--no-m"] + paths)
                  if a not in to]
            # Maintainers MAINTAINERS does not tie to the files (the
            # workqueue's of its Rust API, say), named in series.yaml.
            to += [a for a in st.get("extra_to") or [] if a not in to]
            cc += [a for a in st.get("extra_cc") or [] if a not in to + cc]
        finally:
            shutil.rmtree(tmp)
        start = next(i for i, line in enumerate(lines)
                     if line == f"  - name: {st['name']}")
        end = start + 1
        while end < len(lines) and lines[end].startswith("    "):
            end += 1
        kept, skip = [], False
        for line in lines[start + 1:end]:
            if line.startswith(("    to:", "    cc:")):
                skip = True
            elif skip and line.startswith("      - "):
                continue
            else:
                skip = False
                kept.append(line)

        def block(key, addrs):
            return [f"    {key}:"] + [
                "      - " + re.sub(r"\n\.\.\.$", "", yaml.safe_dump(
                    a, width=10000, allow_unicode=True).strip())
                for a in addrs]
        lines[start + 1:end] = block("to", to) + block("cc", cc) + kept
        print(f"series: set {k} ({st['name']}): {len(to)} To, {len(cc)} Cc")
    with open(path, "w") as f:
        f.write("\n".join(lines))


def check_sets(s, base):
    """Checks that each set applies onto the base with only the sets it
    depends on (series.yaml `deps:`), patch by patch as git am would."""
    spans = sets(s)
    bad = []
    for k, st, first, last in spans:
        if k is None:
            return []
        need = deps_closure(s, st)
        with_ = ", ".join(sorted(need)) or "no other set"
        patches = [i for kk, other, f, l in spans
                   if other["name"] in need or kk == k
                   for i in range(f, l + 1)]
        with Index(base) as idx:
            failed = next((i for i in patches if not idx.apply(
                os.path.join(ROOT, s["patches"][i - 1]["diff"]), f"patch {i}",
                check=False)), None)
        if failed is None:
            print(f"series: set {k} ({st['name']}) applies on the base with {with_}")
        else:
            bad.append(f"set {k} ({st['name']}): patch {failed} does not "
                       f"apply on the base with {with_}")
            print(bad[-1])
    return bad


def git_lines(cmd):
    r = subprocess.run(cmd, cwd=TREE, env=git_env(), capture_output=True,
                       text=True)
    if r.returncode:
        die(f"{' '.join(cmd[:2])} failed:\n{r.stderr}")
    return [line.strip() for line in r.stdout.splitlines() if line.strip()]


def rfc2822(epoch):
    return email.utils.format_datetime(
        datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc))


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("assemble")
    a.add_argument("--out", default=os.path.join(ROOT, "patches"))
    a.add_argument("--no-checkout", action="store_true")
    a.add_argument("--wip", action="store_true",
                   help="build unfolded source-folder changes on top")
    f = sub.add_parser("fold")
    f.add_argument("n", type=int)
    f.add_argument("paths", nargs="*")
    sq = sub.add_parser("squash")
    sq.add_argument("j", type=int)
    sq.add_argument("i", type=int)
    im = sub.add_parser("import")
    im.add_argument("rev", nargs="?", default="series")
    sub.add_parser("list")
    sub.add_parser("files")
    c = sub.add_parser("commit")
    c.add_argument("n", type=int)
    sh = sub.add_parser("show")
    sh.add_argument("n", type=int)
    sh.add_argument("path")
    sub.add_parser("check-layout")
    sub.add_parser("to-cc")
    sub.add_parser("check-sets")
    args = ap.parse_args()

    s = load()
    if args.cmd == "list":
        for i, p in enumerate(s["patches"], 1):
            print(f"{i}\t{p['subject']}")
        return
    if args.cmd == "files":
        paths = added_files(s)
        print("\n".join(paths + [x for x in edited_files(s) if x not in paths]))
        return
    base = ensure_tree()
    if args.cmd == "check-layout":
        errs = check_layout(s, base)
        for e in errs:
            print(e)
        if errs:
            sys.exit(1)
        return
    if args.cmd == "check-sets":
        if check_sets(s, base):
            sys.exit(1)
        return
    if args.cmd == "to-cc":
        to_cc(s, base, build_commits(s, base))
        return
    if args.cmd == "fold":
        fold(s, base, args.n, args.paths)
        return
    if args.cmd == "squash":
        squash(s, base, args.j, args.i)
        return
    if args.cmd == "import":
        import_branch(s, base, args.rev)
        return
    if args.cmd in ("commit", "show"):
        # Built from series/ now: refs of an earlier build would be stale
        # after a fold, squash or import.
        if not 0 <= args.n <= len(s["patches"]):
            die(f"no patch {args.n}")
        ref = ([base] + build_commits(s, base))[args.n]
        if args.cmd == "commit":
            print(ref)
            return
        src = repo_path(s, args.path)
        dst = s["files"][src] if src else args.path
        sys.stdout.write(git("show", f"{ref}:{dst}"))
        return

    commits = build_commits(s, base)
    changed = unfolded(s, commits[-1])
    if changed and not args.wip:
        die(f"the source folders differ from the series' end in "
            f"{', '.join(changed)}: fold the change into its patch "
            f"(tools/series.py fold N), or edit a branch made from the "
            f"kernel tree's `series` with git and take it back "
            f"(tools/series.py import BRANCH)")
    files = write_patches(s, base, commits, args.out)
    if not args.no_checkout:
        for i, c in enumerate(commits, 1):
            git("update-ref", f"refs/tas/p{i}", c)
        for ref in git("for-each-ref", "--format=%(refname)",
                       "refs/tas/").split():
            n = int(ref.rsplit("p", 1)[1])
            if n > len(commits):
                git("update-ref", "-d", ref)
        head = commits[-1]
        if changed:
            head = wip_commit(s, head, changed)
            print(f"series: not folded into a patch yet, built on top: "
                  f"{', '.join(changed)}", file=sys.stderr)
        # Only files that differ from the current checkout are rewritten.
        git("checkout", "-q", "-f", "-B", "series", head)
    tree = git("rev-parse", commits[-1] + "^{tree}").strip()
    n_sets = len(sets(s))
    print(f"series: {len(commits)} patches in {n_sets} "
          f"set{'s' if n_sets > 1 else ''} with cover letters in {args.out} "
          f"({len(files)} files), tree {tree}")


if __name__ == "__main__":
    main()
