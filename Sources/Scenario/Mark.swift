/// A position in a scenario file, 1-based like every editor and compiler shows it.
///
/// Every YAML node carries one so that validation can point the user at the exact character to fix,
/// long after parsing has finished.
public struct Mark: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// 1-based line number.
    public var line: Int
    /// 1-based column, counted in characters (not bytes), as libyaml counts them.
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// Used for problems that belong to a file as a whole (it could not be read), not to a place in it.
    public static let none = Mark(line: 0, column: 0)

    public static func < (lhs: Mark, rhs: Mark) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }

    public var description: String { "\(line):\(column)" }
}
