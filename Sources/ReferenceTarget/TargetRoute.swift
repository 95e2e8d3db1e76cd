/// A request path as the target's API reads it: the part before any `?`, cut at `/` with empty pieces skipped
/// (`//v1//health` is `/v1/health`, as `split` read it), `v1` first. Read on the path's bytes, without an array
/// of parts: only a conversation id and an action become Strings.
struct TargetRoute {
    enum Endpoint: Equatable {
        case devices
        case conversations
        case conversation(String)
        case action(String, String)
        case health
        /// Under `v1/` but no endpoint of this shape.
        case other
    }

    /// Nil when the path does not start with `v1` and one more piece.
    let endpoint: Endpoint?
    private let full: String
    /// Bytes before any `?`.
    private let length: Int

    /// The path before any `?`, for the 404's message (made only then).
    var pathWithoutQuery: Substring { full[..<full.utf8.index(full.utf8.startIndex, offsetBy: length)] }

    init(_ full: String) {
        var path = full
        // Searched in the bytes: UTF8View's `firstIndex(of:)` went through its iterator (~1,000 a request).
        (endpoint, length) = path.withUTF8 { all in
            let length = all.firstIndex(of: UInt8(ascii: "?")) ?? all.count
            return (Self.read(UnsafeBufferPointer(rebasing: all[..<length])), length)
        }
        self.full = full
    }

    private static func read(_ bytes: UnsafeBufferPointer<UInt8>) -> Endpoint? {
        // The first four pieces' byte ranges, in a tuple (no array to allocate), and how many pieces up to five
        // (a fifth is already no endpoint).
        var ranges = (0..<0, 0..<0, 0..<0, 0..<0)
        var count = 0
        var i = 0
        while i < bytes.count && count < 5 {
            if bytes[i] == UInt8(ascii: "/") { i += 1; continue }
            var j = i
            while j < bytes.count && bytes[j] != UInt8(ascii: "/") { j += 1 }
            switch count {
            case 0: ranges.0 = i..<j
            case 1: ranges.1 = i..<j
            case 2: ranges.2 = i..<j
            case 3: ranges.3 = i..<j
            default: break
            }
            count += 1
            i = j
        }
        let found = ranges
        func piece(_ n: Int) -> UnsafeBufferPointer<UInt8> {
            let range = n == 0 ? found.0 : n == 1 ? found.1 : n == 2 ? found.2 : found.3
            return UnsafeBufferPointer(rebasing: bytes[range])
        }
        func text(_ n: Int) -> String { String(decoding: piece(n), as: UTF8.self) }
        func equals(_ n: Int, _ word: StaticString) -> Bool {
            let p = piece(n)
            guard p.count == word.utf8CodeUnitCount else { return false }
            for i in 0..<p.count where p[i] != word.utf8Start[i] { return false }
            return true
        }
        guard count >= 2, equals(0, "v1") else { return nil }
        switch count {
        case 2 where equals(1, "devices"): return .devices
        case 2 where equals(1, "conversations"): return .conversations
        case 2 where equals(1, "health"): return .health
        case 3 where equals(1, "conversations"): return .conversation(text(2))
        case 4 where equals(1, "conversations"): return .action(text(2), text(3))
        default: return .other
        }
    }
}
