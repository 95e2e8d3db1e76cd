#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Scenario

/// Reads scenario files for `ScenarioLoader`, which validates their text and does no I/O.
extension ScenarioLoader {
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
