#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of tools/series.py (run by series-check): the series built from
series/'s diffs, a source-folder change folded into its patch with the later
patches carried over it, a series taken back from a branch edited with git,
and the layout check, on a small git repository standing in for the kernel."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import series  # noqa: E402

A0 = "int a;\n\nint b;\n\nint c;\n"
# Patch 1 adds src/new.c and changes a.c's first line, patch 2 its last.
A1 = "int a1;\n\nint b;\n\nint c;\n"
A2 = "int a1;\n\nint b;\n\nint c2;\n"
NEW1 = "one\ntwo\n"
NEW2 = "one\ntwo\nthree\n"


def run(*args, cwd):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
                   cwd=cwd, check=True, capture_output=True)


class Series(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tas-series-test-")
        self.saved = (series.ROOT, series.BASE, series.TREE)
        series.ROOT = os.path.join(self.tmp, "root")
        series.BASE = os.path.join(self.tmp, "base")
        series.TREE = os.path.join(self.tmp, "tree")
        os.makedirs(os.path.join(series.BASE, "k"))
        self.write(series.BASE, "k/a.c", A0)
        run("init", "-q", "-b", "base", cwd=series.BASE)
        run("add", ".", cwd=series.BASE)
        run("commit", "-q", "-m", "base", cwd=series.BASE)
        # The diffs of the two patches, made with git as series.py makes them.
        work = os.path.join(self.tmp, "work")
        run("clone", "-q", series.BASE, work, cwd=self.tmp)
        diffs = []
        for a, new in ((A1, NEW1), (A2, NEW2)):
            self.write(work, "k/a.c", a)
            self.write(work, "k/new.c", new)
            run("add", ".", cwd=work)
            run("commit", "-q", "-m", "p", cwd=work)
            diffs.append(re.sub(r"^index .*\n", "", subprocess.run(
                ["git", "diff", "HEAD~", "HEAD"], cwd=work, check=True,
                capture_output=True, text=True).stdout, flags=re.M))
        os.makedirs(os.path.join(series.ROOT, "series"))
        os.makedirs(os.path.join(series.ROOT, "src"))
        for i, d in enumerate(diffs, 1):
            self.write(series.ROOT, f"series/p{i}.diff", d)
        self.write(series.ROOT, "src/new.c", NEW2)
        self.write(series.ROOT, "series.yaml", (
            "files:\n  src/new.c: k/new.c\n"
            "patches:\n"
            "  - subject: 'k: one'\n    diff: series/p1.diff\n    body: One.\n"
            "  - subject: 'k: two'\n    id: two\n    diff: series/p2.diff\n"
            "    body: |\n      Two.\n\n      More.\n"
            "cover: {}\n"))
        self.s = series.load()
        self.base = series.ensure_tree()

    def tearDown(self):
        series.ROOT, series.BASE, series.TREE = self.saved
        shutil.rmtree(self.tmp)

    def write(self, root, path, text):
        with open(os.path.join(root, path), "w") as f:
            f.write(text)

    def read(self, path):
        with open(os.path.join(series.ROOT, path)) as f:
            return f.read()

    def show(self, commit, path):
        return series.git("show", f"{commit}:{path}")

    def test_build(self):
        c = series.build_commits(self.s, self.base)
        self.assertEqual(len(c), 2)
        self.assertEqual(self.show(c[0], "k/a.c"), A1)
        self.assertEqual(self.show(c[0], "k/new.c"), NEW1)
        self.assertEqual(self.show(c[1], "k/a.c"), A2)
        self.assertEqual(series.unfolded(self.s, c[1]), [])
        self.assertEqual(series.added_files(self.s), ["k/new.c"])
        self.assertEqual(series.edited_files(self.s), ["k/a.c"])
        # The same diffs again: nothing to rewrite.
        self.assertFalse(series.write_diff(self.s, 1, self.base, c[0]))

    def test_unfolded_and_wip(self):
        self.write(series.ROOT, "src/new.c", "zero\n" + NEW2)
        c = series.build_commits(self.s, self.base)
        self.assertEqual(series.unfolded(self.s, c[1]), ["src/new.c"])
        wip = series.wip_commit(self.s, c[1], ["src/new.c"])
        self.assertEqual(self.show(wip, "k/new.c"), "zero\n" + NEW2)

    def test_fold_carries_later_patches(self):
        self.write(series.ROOT, "src/new.c", "zero\n" + NEW2)
        series.fold(self.s, self.base, 1)
        self.assertIn("+zero\n", self.read("series/p1.diff"))
        self.assertNotIn("+zero", self.read("series/p2.diff"))
        c = series.build_commits(series.load(), self.base)
        self.assertEqual(self.show(c[0], "k/new.c"), "zero\n" + NEW1)
        self.assertEqual(self.show(c[1], "k/new.c"), "zero\n" + NEW2)
        self.assertEqual(series.unfolded(self.s, c[1]), [])

    def test_fold_only_the_paths_given(self):
        self.write(series.ROOT, "src/new.c", "zero\n" + NEW2)
        with self.assertRaises(SystemExit):
            series.fold(self.s, self.base, 1, ["src/other.c"])
        series.fold(self.s, self.base, 1, ["k/new.c"])
        self.assertIn("+zero\n", self.read("series/p1.diff"))

    def test_fold_conflict_changes_nothing(self):
        # "three" arrives in patch 2: patch 1 cannot hold a change of it.
        self.write(series.ROOT, "src/new.c", "one\ntwo\nthree!\n")
        before = self.read("series/p1.diff")
        with self.assertRaises(SystemExit):
            series.fold(self.s, self.base, 1)
        self.assertEqual(self.read("series/p1.diff"), before)
        series.fold(self.s, self.base, 2)
        self.assertIn("+three!\n", self.read("series/p2.diff"))

    def test_nothing_to_fold(self):
        with self.assertRaises(SystemExit):
            series.fold(self.s, self.base, 1)

    def test_squash(self):
        series.squash(self.s, self.base, 2, 1)
        s = series.load()
        self.assertEqual([p["subject"] for p in s["patches"]], ["k: one"])
        self.assertEqual(s["cover"], {})
        self.assertFalse(os.path.exists(os.path.join(series.ROOT, "series/p2.diff")))
        c = series.build_commits(s, self.base)
        self.assertEqual(self.show(c[0], "k/a.c"), A2)
        self.assertEqual(series.unfolded(s, c[0]), [])

    def test_squash_into_a_later_patch(self):
        series.squash(self.s, self.base, 1, 2)
        s = series.load()
        self.assertEqual([p["subject"] for p in s["patches"]], ["k: two"])
        c = series.build_commits(s, self.base)
        self.assertEqual(self.show(c[0], "k/a.c"), A2)
        self.assertEqual(self.show(c[0], "k/new.c"), NEW2)

    def test_squash_carries_through_the_patches_between(self):
        # A third patch, with a trailer, changes a.c's middle line; a comment
        # in series.yaml before it belongs to it, not to patch 2.
        self.write(series.ROOT, "series/p3.diff", (
            "diff --git a/k/a.c b/k/a.c\n--- a/k/a.c\n+++ b/k/a.c\n"
            "@@ -1,5 +1,5 @@\n int a1;\n \n-int b;\n+int b3;\n \n int c2;\n"))
        yml = self.read("series.yaml").replace("cover: {}\n", (
            "  # Patch three.\n"
            "  - subject: 'k: three'\n    diff: series/p3.diff\n"
            "    trailers:\n      - 'Fixes: 0123456789ab (\"k: one\")'\n"
            "    body: Three.\n"
            "cover: {}\n"))
        self.write(series.ROOT, "series.yaml", yml)
        series.squash(series.load(), self.base, 3, 1)
        s = series.load()
        self.assertEqual([p["subject"] for p in s["patches"]],
                         ["k: one", "k: two"])
        self.assertEqual(s["patches"][0]["trailers"],
                         ['Fixes: 0123456789ab ("k: one")'])
        self.assertEqual(s["patches"][1]["id"], "two")
        self.assertEqual(s["patches"][1]["body"], "Two.\n\nMore.\n")
        self.assertEqual(s["cover"], {})
        c = series.build_commits(s, self.base)
        # Patch 1 has patch 3's change, and patch 2 carries it.
        self.assertEqual(self.show(c[0], "k/a.c"), "int a1;\n\nint b3;\n\nint c;\n")
        self.assertEqual(self.show(c[1], "k/a.c"), "int a1;\n\nint b3;\n\nint c2;\n")
        self.assertEqual(self.show(c[1], "k/new.c"), NEW2)

    def test_squash_of_an_unknown_entry_changes_nothing(self):
        yml = self.read("series.yaml")
        broken = yml.replace("  - subject: 'k: two'", "  - subject: 'k: 2'")
        self.write(series.ROOT, "series.yaml", broken)
        s = series.load()
        s["patches"][1]["subject"] = "k: two"
        with self.assertRaises(SystemExit):
            series.squash(s, self.base, 2, 1)
        self.assertEqual(self.read("series.yaml"), broken)
        self.assertTrue(os.path.exists(os.path.join(series.ROOT, "series/p2.diff")))
        self.assertEqual(series.unfolded(series.load(), series.build_commits(
            series.load(), self.base)[-1]), [])

    def test_sets(self):
        yml = self.read("series.yaml")
        yml = yml.replace("  - subject: 'k: one'\n",
                          "  - subject: 'k: one'\n    set: a\n")
        yml = yml.replace("  - subject: 'k: two'\n",
                          "  - subject: 'k: two'\n    set: b\n")
        yml = yml.replace("cover: {}\n", (
            "sets:\n"
            "  - name: a\n    subject: Set A\n    body: The first.\n"
            "    to: [M <m@example.org>]\n"
            "  - name: b\n    deps: [a]\n    subject: Set B\n"
            "    body: The second.\n"))
        self.write(series.ROOT, "series.yaml", yml)
        s = series.load()
        c = series.build_commits(s, self.base)
        out = os.path.join(self.tmp, "out")
        files = series.write_patches(s, self.base, c, out)
        self.assertEqual(sorted(os.listdir(out)), ["1-a", "2-b"])
        self.assertEqual(len(files), 4)
        cover_a = open(os.path.join(out, "1-a", "0000-cover-letter.patch")).read()
        cover_b = open(os.path.join(out, "2-b", "0000-cover-letter.patch")).read()
        patch_1 = open(os.path.join(out, "1-a", files[1].split("/")[1])).read()
        self.assertIn("Subject: [PATCH 0/1] Set A", cover_a)
        self.assertIn("To: M <m@example.org>", cover_a)
        self.assertIn("The second.", cover_b)
        self.assertNotIn("prerequisite-patch-id", cover_a)
        # Set b names patch 1 as what it applies on.
        self.assertIn(f"prerequisite-patch-id: {series.patch_id(patch_1)}\n",
                      cover_b)
        # Set b's patch applies on set a's: its diff is patch 2's alone.
        patch_2 = open(os.path.join(out, files[3])).read()
        self.assertIn("+int c2;", patch_2)
        self.assertNotIn("+int a1;", patch_2)
        # Set b applies on the base with set a, not without it.
        self.assertEqual(series.check_sets(s, self.base), [])
        self.write(series.ROOT, "series.yaml", yml.replace("    deps: [a]\n", ""))
        self.assertEqual(len(series.check_sets(series.load(), self.base)), 1)
        # Sets must start where series.yaml lists them.
        self.write(series.ROOT, "series.yaml", yml.replace("    set: b\n", ""))
        with self.assertRaises(SystemExit):
            series.sets(series.load())

    def test_import_from_a_branch(self):
        c = series.build_commits(self.s, self.base)
        t = series.TREE
        run("checkout", "-q", "-f", "-B", "series", c[1], cwd=t)
        # A fixup of patch 1 in a.c, squashed with git's own rebase.
        self.write(t, "k/a.c", "int a1;\n\nint b1;\n\nint c2;\n")
        run("commit", "-q", "-a", "--fixup", c[0], cwd=t)
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t",
                        "rebase", "-q", "-i", "--autosquash", self.base],
                       cwd=t, check=True, capture_output=True,
                       env={**os.environ, "GIT_SEQUENCE_EDITOR": "true"})
        series.import_branch(self.s, self.base, "series")
        self.assertIn("+int b1;\n", self.read("series/p1.diff"))
        c = series.build_commits(series.load(), self.base)
        self.assertEqual(self.show(c[0], "k/a.c"), "int a1;\n\nint b1;\n\nint c;\n")
        self.assertEqual(series.unfolded(self.s, c[1]), [])

    def test_import_refuses_other_shapes(self):
        c = series.build_commits(self.s, self.base)
        with self.assertRaises(SystemExit):
            series.import_branch(self.s, self.base, c[0])
        # A new file that no source folder holds.
        t = series.TREE
        run("checkout", "-q", "-f", "-B", "series", c[1], cwd=t)
        self.write(t, "k/stray.c", "x\n")
        run("add", "k/stray.c", cwd=t)
        run("commit", "-q", "--amend", "--no-edit", cwd=t)
        before = self.read("series/p2.diff")
        with self.assertRaises(SystemExit):
            series.import_branch(self.s, self.base, "series")
        # Refused before anything was written.
        self.assertEqual(self.read("series/p2.diff"), before)

    def test_import_keeps_unfolded_changes(self):
        c = series.build_commits(self.s, self.base)
        series.git("branch", "-f", "mine", c[1])
        self.write(series.ROOT, "src/new.c", "mine\n")
        with self.assertRaises(SystemExit):
            series.import_branch(self.s, self.base, "mine")
        self.assertEqual(self.read("src/new.c"), "mine\n")

    def test_layout(self):
        self.assertEqual(series.check_layout(self.s, self.base), [])
        self.assertEqual(series.layout_errors("}\n\n\nx\n", "t"),
                         ["t:3: two blank lines"])
        self.assertEqual(series.layout_errors("}\nstatic int c;\n", "t"),
                         ["t:2: no blank line after '}'"])
        self.assertEqual(series.layout_errors("use a::{\n    b,\n};\nuse c;\n", "t"), [])


if __name__ == "__main__":
    unittest.main()
