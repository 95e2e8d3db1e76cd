import Checker
import Foundation

/// Reads `history.jsonl` from disk for the checker (a value module without I/O): maps the file and hands its bytes
/// to `HistoryReader.parse(buffer:)`.
extension HistoryReader {
    /// The events of the history file at `url`; `HistoryError` names the line of a malformed one, or why the file
    /// cannot be read. `sipMessages: false` leaves `sip` lines' payloads blank (`parse(buffer:sipMessages:)`).
    public static func read(contentsOf url: URL, sipMessages: Bool = true) throws -> [HistoryEvent] {
        if let events = try readMapped(path: url.path, sipMessages: sipMessages) { return events }
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .alwaysMapped)
        } catch {
            throw HistoryError.unreadable(path: url.path, message: "\(error.localizedDescription)")
        }
        return try data.withUnsafeBytes { raw in
            try parse(buffer: UnsafeBufferPointer(start: raw.bindMemory(to: UInt8.self).baseAddress, count: raw.count),
                      sipMessages: sipMessages)
        }
    }

    /// Maps the file and parses it in place: Foundation's `Data` on Linux reads a large file into fresh memory, which
    /// cost a tenth of reading a history. Nil when the file cannot be mapped (missing, empty, not a regular file), so
    /// that `Data` reports the error in its own words as before.
    private static func readMapped(path: String, sipMessages: Bool) throws -> [HistoryEvent]? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 0 else { return nil }
        let size = Int(info.st_size)
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else { return nil }
        defer { munmap(base, size) }
        _ = madvise(base, size, MADV_SEQUENTIAL)
        return try parse(buffer: UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: size),
                         sipMessages: sipMessages)
    }
}
