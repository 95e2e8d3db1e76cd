"""Self-test of the doc citation check (limits/doc_tests.py): classes, methods, modules and bare method names."""

import os
import tempfile
import unittest

from doc_tests import check_citations

SWIFT = """import XCTest

final class AlphaTests: XCTestCase {
    func testOne() {}
    final class HelperTests {}
}

extension AlphaTests {
    func testTwo() {}
}

final class BetaTests: XCTestCase {
    func testThree() {}
}
"""


class DocCitationTests(unittest.TestCase):
    def problems(self, doc):
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "Tests", "ModTests"))
            os.makedirs(os.path.join(root, "docs"))
            with open(os.path.join(root, "Tests", "ModTests", "AlphaTests.swift"), "w") as handle:
                handle.write(SWIFT)
            with open(os.path.join(root, "docs", "X.md"), "w") as handle:
                handle.write(doc)
            return [(line, message) for _, line, message in check_citations(root)]

    def test_classes_methods_modules_and_files_that_exist_pass(self):
        doc = ("AlphaTests, `AlphaTests.testOne`, AlphaTests.testTwo (an extension's), ModTests, "
               "ModTests.BetaTests, AlphaTests.swift, BetaTests.testThree\n")
        self.assertEqual(self.problems(doc), [])

    def test_a_renamed_method_a_moved_class_and_a_missing_class_are_named_with_their_line(self):
        doc = "fine\nAlphaTests.testGone\nModTests.GammaTests\nGammaTests\nBetaTests.testOne\nOtherTests.BetaTests\n"
        found = self.problems(doc)
        self.assertEqual([line for line, _ in found], [2, 3, 4, 5, 6])
        self.assertIn("AlphaTests has no method testGone", found[0][1])
        self.assertIn("no test class GammaTests", found[1][1])
        self.assertIn("BetaTests has no method testOne", found[3][1])

    def test_a_nested_helper_class_is_not_a_test_class(self):
        self.assertEqual(len(self.problems("HelperTests\n")), 1)

    def test_bare_method_names_belong_to_a_class_the_line_cites_or_to_any(self):
        self.assertEqual(self.problems("AlphaTests: testOne, testTwo\n`testThree` alone\n"), [])
        found = self.problems("AlphaTests: testOne, testThree\n`testNothing` alone\n")
        self.assertEqual([line for line, _ in found], [1, 2])

    def test_a_marked_line_is_not_read(self):
        self.assertEqual(self.problems("GammaTests <!-- limits: a word in prose -->\n"), [])


if __name__ == "__main__":
    unittest.main()
