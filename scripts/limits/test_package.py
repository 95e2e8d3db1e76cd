"""Self-test of Package.swift's dependencies against the imports (limits/package.py), on fixtures/dependencies."""

import os
import unittest

from package import check_dependencies, read_targets, without_comments

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "dependencies")


class DependencyTests(unittest.TestCase):
    def test_both_directions_are_named_per_target_and_nothing_else(self):
        found = sorted((target, message.split(": ", 1)[1]) for target, message in check_dependencies(FIXTURE))
        self.assertEqual(found, [
            ("App", "App declares Unused but no file under Sources/App imports it; remove it from its dependencies"),
            ("App", "App imports Hidden without declaring it in Package.swift; add it to the target's dependencies"),
            ("AppTests", "AppTests declares Hidden but no file under Tests/AppTests imports it; remove it from its "
                         "dependencies"),
        ])

    def test_places_are_the_manifest_line_or_the_importing_file(self):
        places = sorted(message.split(": ", 1)[0] for _, message in check_dependencies(FIXTURE))
        self.assertEqual(places, ["Package.swift:19", "Package.swift:29", "Sources/App/More.swift:2"])

    def test_targets_paths_conditions_and_comments_are_read(self):
        targets = {t.name: t for t in read_targets(FIXTURE)}
        self.assertEqual(targets["tool"].directory, "Tools/tool")
        self.assertEqual(targets["AppTests"].directory, os.path.join("Tests", "AppTests"))
        self.assertEqual([name for name, _ in targets["App"].dependencies], ["Core", "Unused"])
        self.assertEqual([name for name, _ in targets["Linked"].dependencies], ["Core", "Unused"])
        self.assertEqual(targets["Linked"].excused, {"Core", "Unused"})
        self.assertEqual(targets["CFoo"].kind, "systemLibrary")

    def test_comments_are_blanked_and_strings_kept(self):
        blanked = 'a("x")' + " " * 7 + "\n" + " " * 6 + "\n" + " " * 4 + '"w"'
        self.assertEqual(without_comments('a("x") // "y"\n/* "z"\n */ "w"'), blanked)

    def test_a_tree_without_a_manifest_has_nothing_to_judge(self):
        self.assertEqual(check_dependencies(os.path.join(FIXTURE, "Sources")), [])
