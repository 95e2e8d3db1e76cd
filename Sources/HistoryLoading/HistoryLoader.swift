import Checker
import Foundation
import Glibc

/// Reads `history.jsonl` from disk for the checker (a value module without I/O): reads the file a few MiB at a time
/// and hands each piece of whole lines to `HistoryReader.Pieces`.
extension HistoryReader {
    /// The events of the history file at `url`; `HistoryError` names the line of a malformed one, or why the file
    /// cannot be read. `sipMessages: false` leaves `sip` lines' payloads blank (`parse(buffer:sipMessages:)`).
    /// `pieceBytes`: the bytes read at a time (the tests' small ones split lines across reads).
    public static func read(contentsOf url: URL, sipMessages: Bool = true,
                            pieceBytes: Int = pieceBytes) throws -> [HistoryEvent] {
        if let events = try readPieces(path: url.path, sipMessages: sipMessages, pieceBytes: max(1, pieceBytes)) {
            return events
        }
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

    /// The bytes read at a time. Until 2026-12-07 the file was mapped whole and parsed in place (Foundation's
    /// `Data` on Linux reads a large file into fresh memory, which cost a tenth of reading a history), so its
    /// pages counted in the process's RSS through the check: 96 MB for a 60 s SIP run at 400 calls/s, a third of
    /// the run's peak. A piece of this size costs the same reads, and the RSS of one piece.
    public static let pieceBytes = 4 << 20

    /// Reads the file's first `st_size` bytes (what the mapping held) piece by piece, each piece ending after its
    /// last newline, the rest carried to the next; the last piece may end without one. Nil when the file cannot
    /// be opened (missing, empty, not a regular file), so that `Data` reports the error in its own words as before.
    private static func readPieces(path: String, sipMessages: Bool, pieceBytes: Int) throws -> [HistoryEvent]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 0 else { return nil }
        var left = Int(info.st_size)
        var pieces = Pieces(sipMessages: sipMessages, expectedBytes: left)
        // Not zeroed: `read` fills what is parsed (a zeroed array's `memset` was ~6 k instructions a SIP call).
        var capacity = min(left, pieceBytes)
        var buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        var held = 0  // bytes at the buffer's start carried from the last read: a line not yet ended
        while left > 0 {
            if held == capacity {  // one line longer than the buffer: twice the room
                let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
                larger.update(from: buffer, count: held)
                buffer.deallocate()
                (buffer, capacity) = (larger, capacity * 2)
            }
            let got = Glibc.read(fd, buffer + held, min(capacity - held, left))
            if got < 0, errno == EINTR { continue }
            guard got > 0 else {
                let why = got < 0 ? String(cString: strerror(errno)) : "the file ended early"
                throw HistoryError.unreadable(path: path, message: why)
            }
            left -= got
            let filled = held + got
            // Whole lines now; at the end of the file, everything (its last line may lack a newline).
            var whole = filled
            if left > 0 {
                while whole > 0, buffer[whole - 1] != 0x0A { whole -= 1 }
            }
            try pieces.parse(UnsafeBufferPointer(start: buffer, count: whole))
            held = filled - whole
            if held > 0, whole > 0 { memmove(buffer, buffer + whole, held) }
        }
        return pieces.events
    }
}
