"""Self-test of one module per type name (limits/type_names.py), on fixtures/type_names."""

import os
import unittest

from package import read_targets
from tree import check_tree
from type_names import check_type_names, file_scope_types

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "type_names")


class TypeNameTests(unittest.TestCase):
    def found(self):
        return check_type_names(FIXTURE, {t.name: t.directory for t in read_targets(FIXTURE)})

    def test_a_name_declared_in_two_modules_is_named_with_every_place(self):
        problems = dict(self.found())
        self.assertEqual(sorted(problems), ["Shape", "Window"])
        self.assertEqual(problems["Window"], "type Window is declared in 3 modules: A (Sources/A/Window.swift:2), "
                                             "B (Sources/B/Window.swift:2), C (Sources/C/Other.swift:5); rename all "
                                             "but one (or nest it in the type that owns it)")

    def test_nested_private_extended_and_commented_types_do_not_count(self):
        with open(os.path.join(FIXTURE, "Sources", "B", "Window.swift"), encoding="utf-8") as handle:
            self.assertEqual(file_scope_types(handle.read()), [(2, "class", "Window"), (6, "struct", "Inner"),
                                                               (8, "typealias", "Shape")])

    def test_a_pending_name_is_printed_as_pending_and_a_fixed_one_as_removable(self):
        notes = []
        problems = check_tree(FIXTURE, notes)
        self.assertEqual([p.split(": ")[1].split(" is ")[0] for p in problems], ["type Window"])
        self.assertEqual(len(notes), 2)
        self.assertIn("pending (another branch renames it): type Shape is declared in 2 modules", notes[0])
        self.assertIn("Gone duplicate is within the limits now", notes[1])

    def test_a_file_without_a_target_belongs_to_its_folder_under_sources(self):
        problems = dict(check_type_names(FIXTURE, {}))
        self.assertIn("A (Sources/A/Window.swift:2)", problems["Window"])
