"""Self-test of the sleep rules (limits/sleeps.py): literal over 100 ms, computed, and their markers."""

import os
import unittest

from sizes import check_file
from tree import check_tree


class SleepTests(unittest.TestCase):
    def test_literal_sleeps_over_100_ms_are_named_and_shorter_ones_pass(self):
        text = ("func t() {\n    usleep(200_000)\n    usleep(100_000)\n    sleep(1)\n"
                "    Thread.sleep(forTimeInterval: 2.5)\n    Thread.sleep(forTimeInterval: 0.05)\n"
                "    q.asyncAfter(deadline: .now() + 1.5) {}\n"
                "    q.asyncAfter(deadline: .now() + .milliseconds(250)) {}\n"
                "    q.asyncAfter(deadline: .now() + .milliseconds(50)) {}\n    usleep(99_000)\n"
                "    // usleep(9_000_000)\n}\n")
        self.assertEqual([p[0] for p in check_file("t.swift", text, sleeps=True)], [2, 4, 5, 7, 8])
        self.assertEqual(check_file("t.swift", text), [])

    def test_a_sleep_that_says_why_the_real_clock_is_the_point_passes(self):
        text = "func t() {\n    // limits: a scraper's cadence against a real run\n    usleep(500_000)\n}\n"
        self.assertEqual(check_file("t.swift", text, sleeps=True), [])

    def test_a_literal_sleep_with_the_sleep_marker_passes(self):
        text = "func t() {\n    usleep(500_000)  // sleep-ok: a server's outage on the real clock\n}\n"
        self.assertEqual(check_file("t.swift", text, sleeps=True), [])


FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "sleeps")


class ComputedSleepTests(unittest.TestCase):
    def named(self):
        path = os.path.join(FIXTURE, "Tests", "SleepyTests", "SleepyTests.swift")
        with open(path, encoding="utf-8") as handle:
            return check_file("SleepyTests.swift", handle.read(), sleeps=True)

    def test_computed_sleeps_without_a_reason_are_named_in_every_spelling(self):
        computed = [line for line, message in self.named() if "computed duration" in message]
        # usleep, Thread.sleep, sleep, asyncAfter with `+ delay` and with `.milliseconds(ms)`, Task.sleep on one
        # line and over two, and a marker with no reason (line 21).
        self.assertEqual(computed, [7, 8, 9, 10, 11, 12, 13, 21])

    def test_the_message_quotes_the_call(self):
        messages = dict(self.named())
        self.assertIn("usleep(UInt32(ms * 1000))", messages[7])
        self.assertIn("'// sleep-ok: <reason>'", messages[7])

    def test_a_literal_task_sleep_over_100_ms_is_named_as_literal(self):
        self.assertIn((23, "test sleeps 0.5 s (Task.sleep(nanoseconds: 500_000_000)); wait for an event or move "
                           "the manual clock"), self.named())

    def test_the_whole_tree_check_names_the_fixture(self):
        problems = check_tree(FIXTURE)
        self.assertEqual(len(problems), 9)
        self.assertTrue(problems[0].startswith("Tests/SleepyTests/SleepyTests.swift:7: test sleeps for a computed"))

    def test_sleeps_outside_tests_are_not_judged(self):
        text = "func wait() {\n    usleep(micros)\n}\n"
        self.assertEqual(check_file("Sources/M/Wait.swift", text), [])
