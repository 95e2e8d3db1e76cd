/// Every problem found in a scenario, reported together.
///
/// Like k6's `Validate() []error`, the loader keeps going after the first problem so a user fixes a file in one
/// round trip instead of one error per run.
public struct ScenarioErrors: Error, CustomStringConvertible, Equatable, Sendable {
    /// The problems, sorted by position (file-level problems first).
    public var errors: [ScenarioError]

    public init(_ errors: [ScenarioError]) {
        // A stable sort keeps two problems at one position in the order they were found.
        self.errors = errors.enumerated().sorted { lhs, rhs in
            (lhs.element.line, lhs.element.column, lhs.offset) < (rhs.element.line, rhs.element.column, rhs.offset)
        }.map(\.element)
    }

    public var description: String {
        errors.map(\.description).joined(separator: "\n")
    }
}
