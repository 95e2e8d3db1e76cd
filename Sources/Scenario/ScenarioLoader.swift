#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads scenario files into validated `Scenario` values.
///
/// All problems come back together, each with its file position, so `callstorm validate` can list everything
/// wrong in one go. Nothing here runs anything: a loaded scenario is only data.
public enum ScenarioLoader {
    /// The built-in flow names. Kept for source compatibility of the `knownFlows:` parameters below, which are
    /// ignored: a scenario's `mix` may name the built-in flows and the flows its own `flows:` section defines.
    public static let defaultKnownFlows = Set(BuiltinFlows.names)

    /// Reads and validates the scenario at `path`. A missing or unreadable file is an error naming the path.
    /// `knownFlows` is ignored (see `defaultKnownFlows`).
    public static func load(
        contentsOf path: String, knownFlows: Set<String> = defaultKnownFlows
    ) -> Result<Scenario, ScenarioErrors> {
        switch readFile(path) {
        case .success(let bytes):
            return parse(bytes: bytes, file: path, knownFlows: knownFlows)
        case .failure(let reason):
            return .failure(ScenarioErrors([
                ScenarioError(file: path, mark: .none, message: "cannot read scenario file '\(path)': \(reason)"),
            ]))
        }
    }

    /// Validates scenario text; `file` names it in error messages and becomes `Scenario.sourceFile`.
    /// `knownFlows` is ignored (see `defaultKnownFlows`).
    public static func parse(
        _ yaml: String, file: String, knownFlows: Set<String> = defaultKnownFlows
    ) -> Result<Scenario, ScenarioErrors> {
        parse(bytes: Array(yaml.utf8), file: file, knownFlows: knownFlows)
    }

    static func parse(bytes: [UInt8], file: String, knownFlows: Set<String>) -> Result<Scenario, ScenarioErrors> {
        let (root, syntaxErrors) = YAMLParser.parse(bytes: bytes, file: file)
        var decoder = ScenarioDecoder(file: file)
        decoder.errors = syntaxErrors
        guard let root else {
            if decoder.errors.isEmpty {
                decoder.report(Mark(line: 1, column: 1), "the scenario is empty; it needs at least "
                    + "'name', 'devices' and 'load'")
            }
            return .failure(ScenarioErrors(decoder.errors))
        }
        let scenario = decoder.scenario(root)
        if let scenario, decoder.errors.isEmpty { return .success(scenario) }
        return .failure(ScenarioErrors(decoder.errors))
    }

    /// The whole file, or the system's reason it cannot be read. POSIX I/O keeps Foundation out of this module.
    private static func readFile(_ path: String) -> Result<[UInt8], ReadFailure> {
        guard let handle = fopen(path, "rb") else { return .failure(ReadFailure(errno: errno)) }
        defer { fclose(handle) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, handle) }
            bytes.append(contentsOf: chunk[0..<count])
            if count < chunk.count {
                if ferror(handle) != 0 { return .failure(ReadFailure(errno: errno)) }
                return .success(bytes)
            }
        }
    }

    private struct ReadFailure: Error, CustomStringConvertible {
        let errno: Int32
        var description: String { String(cString: strerror(errno)) }
    }
}
