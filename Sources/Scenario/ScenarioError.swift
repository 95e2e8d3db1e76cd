/// One problem in a scenario file, positioned so an editor can jump to it.
///
/// The description follows the compiler convention `<file>:<line>:<column>: error: <message>` so that editors and
/// CI log parsers link it. A file-level problem (it could not be read) has line 0 and prints without a position.
public struct ScenarioError: Error, CustomStringConvertible, Equatable, Sendable {
    public var file: String
    public var line: Int
    public var column: Int
    /// What is wrong, in words that say what to change.
    public var message: String
    /// A likely intended spelling, shown as "did you mean '<x>'?".
    public var suggestion: String?

    public init(file: String, line: Int, column: Int, message: String, suggestion: String? = nil) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
        self.suggestion = suggestion
    }

    public init(file: String, mark: Mark, message: String, suggestion: String? = nil) {
        self.init(file: file, line: mark.line, column: mark.column, message: message, suggestion: suggestion)
    }

    public var mark: Mark { Mark(line: line, column: column) }

    public var description: String {
        let place = line > 0 ? "\(file):\(line):\(column)" : file
        let hint = suggestion.map { " (did you mean '\($0)'?)" } ?? ""
        return "\(place): error: \(message)\(hint)"
    }
}
