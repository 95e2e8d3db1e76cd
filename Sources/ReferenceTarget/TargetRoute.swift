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
    /// The path before any `?`, for the 404's message.
    let pathWithoutQuery: Substring

    init(_ full: String) {
        let end = full.utf8.firstIndex(of: UInt8(ascii: "?")) ?? full.utf8.endIndex
        pathWithoutQuery = full[..<end]
        let length = full.utf8.distance(from: full.utf8.startIndex, to: end)
        var path = full
        endpoint = path.withUTF8 { Self.read(UnsafeBufferPointer(rebasing: $0[..<length])) }
    }

    private static func read(_ bytes: UnsafeBufferPointer<UInt8>) -> Endpoint? {
        // The first five pieces' byte ranges (a fifth is already no endpoint).
        var pieces: [Range<Int>] = []
        pieces.reserveCapacity(5)
        var i = 0
        while i < bytes.count && pieces.count < 5 {
            if bytes[i] == UInt8(ascii: "/") { i += 1; continue }
            var j = i
            while j < bytes.count && bytes[j] != UInt8(ascii: "/") { j += 1 }
            pieces.append(i..<j)
            i = j
        }
        let count = pieces.count
        func piece(_ n: Int) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[pieces[n]]) }
        func text(_ n: Int) -> String { String(decoding: piece(n), as: UTF8.self) }
        func equals(_ n: Int, _ word: StaticString) -> Bool {
            let p = piece(n)
            return p.count == word.utf8CodeUnitCount
                && p.elementsEqual(UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount))
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
