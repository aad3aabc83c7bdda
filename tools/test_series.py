#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of the staging markers of tools/series.py (run by series-check)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import series  # noqa: E402

IDS = {"rings": 2, "gangs": 4}

SRC = """\
a
// series: from rings
b
    /* series: until gangs */
    c
    /* series: end */
    # series: from gangs
    d
    # series: end
// series: end
.. series: until rings
e
.. series: end
f
"""


class Stage(unittest.TestCase):
    def stage(self, n, text=SRC):
        return series.stage_text(IDS, text, n, "t")

    def test_versions(self):
        self.assertEqual(self.stage(1), "a\ne\nf\n")
        self.assertEqual(self.stage(2), "a\nb\n    c\nf\n")
        self.assertEqual(self.stage(3), "a\nb\n    c\nf\n")
        self.assertEqual(self.stage(4), "a\nb\n    d\nf\n")

    def test_no_markers_unchanged(self):
        self.assertEqual(self.stage(1, "x\n// series is a word\n"),
                         "x\n// series is a word\n")

    def errors(self, text):
        with self.assertRaises(SystemExit):
            self.stage(1, text)

    def test_block_comment_lines(self):
        text = "/*\n * a\n * series: from gangs\n * b\n * series: end\n */\n"
        self.assertEqual(self.stage(3, text), "/*\n * a\n */\n")
        self.assertEqual(self.stage(4, text), "/*\n * a\n * b\n */\n")

    def test_layout(self):
        # The block carries its edge blank line: both stages are clean.
        good = "}\n/* series: from gangs */\n\nx\n/* series: end */\n\ny\n"
        self.assertEqual(series.layout_errors(self.stage(1, good), "t"), [])
        self.assertEqual(series.layout_errors(self.stage(4, good), "t"), [])
        # The blank line outside the block: two of them without it.
        bad = "}\n\n/* series: from gangs */\nx\n/* series: end */\n\ny\n"
        self.assertEqual(series.layout_errors(self.stage(1, bad), "t"),
                         ["t:3: two blank lines"])
        self.assertEqual(series.layout_errors(self.stage(4, bad), "t"), [])
        # No blank line at all between a closing brace and the next item.
        self.assertEqual(series.layout_errors("}\nstatic int c;\n", "t"),
                         ["t:2: no blank line after '}'"])

    def test_unknown_id(self):
        self.errors("// series: from nope\nx\n// series: end\n")

    def test_unbalanced(self):
        self.errors("// series: from rings\nx\n")
        self.errors("x\n// series: end\n")


if __name__ == "__main__":
    unittest.main()
