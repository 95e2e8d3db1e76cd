"""Self-test of scripts/limits-pending.txt (limits/pending.py, limits/tree.py)."""

import os
import tempfile
import unittest

from tree import check_tree


class PendingTests(unittest.TestCase):
    def test_a_pending_entry_excuses_its_kind_in_its_file_only(self):
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "scripts"))
            os.makedirs(os.path.join(root, "Sources", "Driver"))
            with open(os.path.join(root, "scripts", "limits-pending.txt"), "w") as handle:
                handle.write("# comment\nSources/Driver/A.swift metric issue 25 types the names\n"
                             "Sources/Driver/Gone.swift type fixed elsewhere\n")
            for name in ("A", "B"):
                with open(os.path.join(root, "Sources", "Driver", name + ".swift"), "w") as handle:
                    handle.write('func f() {\n    r.count("calls.started")\n}\n')
            notes = []
            problems = check_tree(root, notes)
            self.assertEqual(problems, ['Sources/Driver/B.swift:2: metric name literal "calls.started" outside the '
                                        'catalog (use MetricName)'])
            self.assertEqual(len(notes), 2)
            self.assertIn("Gone.swift type is within the limits now", notes[1])
