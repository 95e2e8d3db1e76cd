"""Self-test of the per-file size checks, the markers and metric names (limits/sizes.py)."""

import unittest

from sizes import check_file

def lines(n, body="    x += 1"):
    return "\n".join([body] * n)


class LimitsTests(unittest.TestCase):
    def test_the_older_on_purpose_phrase_counts_as_a_marker(self):
        props = "\n".join(f"    var p{i}: Int = 0" for i in range(16))
        text = ("/// More than 15 stored properties on purpose: the loop's hot state.\n"
                f"final class Big {{\n{props}\n}}\n")
        self.assertEqual(check_file("f.swift", text), [])

    def test_a_file_over_500_lines_is_named_at_line_1(self):
        text = "let a = 1\n" * 501
        self.assertEqual(check_file("f.swift", text), [(1, "file has 501 lines (limit 500)")])

    def test_a_file_of_500_lines_passes(self):
        self.assertEqual(check_file("f.swift", "let a = 1\n" * 500), [])

    def test_a_file_marker_in_the_header_excuses_the_file(self):
        text = "// limits: generated table\nimport Foundation\n" + "let a = 1\n" * 600
        self.assertEqual(check_file("f.swift", text), [])

    def test_a_marker_without_a_reason_does_not_count(self):
        text = "// limits:\n" + "let a = 1\n" * 600
        self.assertEqual(len(check_file("f.swift", text)), 1)

    def test_a_function_over_80_lines_is_named_at_its_declaration(self):
        text = "struct S {\n    func long() {\n" + lines(79) + "\n    }\n}\n"
        problems = check_file("f.swift", text)
        self.assertEqual([p[0] for p in problems], [2])
        self.assertIn("81 lines", problems[0][1])

    def test_a_function_of_80_lines_passes(self):
        text = "func ok() {\n" + lines(78) + "\n}\n"
        self.assertEqual(check_file("f.swift", text), [])

    def test_braces_in_strings_and_comments_do_not_end_a_function(self):
        body = lines(40) + '\n    let s = "}}}"\n    // }\n    /* } */\n    let t = """\n    }\n    """\n' + lines(40)
        text = "func long() {\n" + body + "\n}\n"
        self.assertEqual([p[0] for p in check_file("f.swift", text)], [1])

    def test_interpolation_with_a_closure_is_code(self):
        text = 'func f() {\n    let s = "\\(xs.map { "\\($0)" })"\n}\nfunc g() {}\n'
        self.assertEqual(check_file("f.swift", text), [])

    def test_a_doc_comment_marker_excuses_a_function(self):
        text = ("/// Parses the whole grammar in one switch.\n// limits: one switch over every token kind\n"
                "@inline(never)\nfunc long() {\n" + lines(90) + "\n}\n")
        self.assertEqual(check_file("f.swift", text), [])

    def test_initializers_and_protocol_requirements(self):
        text = "protocol P {\n    func f()\n    init(x: Int)\n}\nstruct S {\n    init(x: Int) {\n" + lines(85) \
            + "\n    }\n}\n"
        self.assertEqual([p[0] for p in check_file("f.swift", text)], [6])

    def test_a_type_with_16_stored_properties_is_named(self):
        props = "\n".join(f"    var p{i}: Int = 0" for i in range(16))
        text = f"final class Big {{\n{props}\n}}\n"
        problems = check_file("f.swift", text)
        self.assertEqual(problems, [(1, "class Big has 16 stored properties (limit 15)")])

    def test_computed_static_and_nested_properties_do_not_count(self):
        props = "\n".join(f"    let p{i}: Int" for i in range(15))
        extra = ("    var computed: Int { 1 }\n    static var shared = 0\n    var multi: Int {\n        2\n    }\n"
                 "    struct Inner {\n        var a = 1\n    }\n    func f() {\n        var local = 1\n    }\n")
        text = f"struct S {{\n{props}\n{extra}}}\n"
        self.assertEqual(check_file("f.swift", text), [])

    def test_observed_and_closure_initialised_properties_count(self):
        props = "\n".join(f"    let p{i}: Int" for i in range(14))
        extra = "    var seen = 0 {\n        didSet {}\n    }\n    var made = { 1 }()\n"
        text = f"struct S {{\n{props}\n{extra}}}\n"
        self.assertEqual(len(check_file("f.swift", text)), 1)

    def test_metric_literal_is_found_only_where_asked_and_only_in_code(self):
        text = 'func f() {\n    recorder.count("push.accepted", atNanos: 0)\n    // count("a.b")\n}\n'
        self.assertEqual(check_file("f.swift", text), [])
        problems = check_file("f.swift", text, metric_literals=True)
        self.assertEqual([p[0] for p in problems], [2])

    def test_a_marked_metric_literal_passes(self):
        text = 'func f() {\n    // limits: a name the server sends, not one of ours\n    r.record("x.y", 1)\n}\n'
        self.assertEqual(check_file("f.swift", text, metric_literals=True), [])

    def test_typed_metric_names_pass(self):
        text = 'func f() {\n    r.count(MetricName.pushAccepted)\n    r.record(.flowStep("a.b"), 1)\n}\n'
        self.assertEqual(check_file("f.swift", text, metric_literals=True), [])
