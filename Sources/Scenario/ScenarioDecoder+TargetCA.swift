#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ScenarioDecoder {
    /// `target.ca`: a path relative to the scenario file's directory (or absolute), which must be readable now, so
    /// `callstorm validate` names a missing file at its place instead of every request failing its TLS handshake.
    mutating func caFile(_ node: YAMLNode) -> String? {
        guard let text = string(node, "ca") else { return nil }
        guard !text.isEmpty else {
            report(node.mark, "'ca' needs the path of a PEM file of CA certificates")
            return nil
        }
        let path = Self.resolve(text, besideScenario: file)
        guard access(path, R_OK) == 0 else {
            let reason = String(cString: strerror(errno))
            report(node.mark, "cannot read CA file '\(path)': \(reason)")
            return nil
        }
        return path
    }

    /// `path` as written when absolute; otherwise joined to the directory of `scenarioFile` (as written too).
    static func resolve(_ path: String, besideScenario scenarioFile: String) -> String {
        guard !path.hasPrefix("/"), let slash = scenarioFile.lastIndex(of: "/") else { return path }
        return String(scenarioFile[...slash]) + path
    }
}
