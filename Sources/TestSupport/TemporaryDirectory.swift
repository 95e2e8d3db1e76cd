import Foundation

/// Scratch space for one test: unique paths under the system temporary directory, named
/// `callstorm-<label>-<uuid>` so a leftover says which test left it. The test removes what it made, in `defer`
/// or `tearDown`, with `remove(_:)`.
public enum TemporaryDirectory {
    /// A new, empty directory.
    public static func make(_ label: String) throws -> URL {
        let url = path(label)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A fresh path that does not exist yet, for a file (`suffix` ".yaml") or a directory the code under test
    /// creates itself.
    public static func path(_ label: String, suffix: String = "") -> URL {
        let name = "callstorm-\(label)-\(UUID().uuidString)\(suffix)"
        return FileManager.default.temporaryDirectory.appendingPathComponent(name)
    }

    /// Removes `url` and everything below it; a path that is already gone is fine.
    public static func remove(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
    }
}
