import HTTPWire

/// `http1-response`: byte 0 picks the piece size (bits 1...7, 0 meaning all at once) and whether the request
/// was HEAD (bit 0); the rest is a server's bytes for `HTTP1ResponseParser`, fed in pieces, then the stream's
/// end. Differential: the same bytes fed whole must give the same outcome (response or error), since a parser
/// whose answer depends on how TCP split the bytes is the bug a client of our own is most likely to have.
func fuzzHTTP1Response(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    let input = Array(bytes.dropFirst())
    let head = first & 1 == 1
    let piece = Int(first >> 1)
    let whole = parseResponse(input, piece: input.count, head: head)
    let split = parseResponse(input, piece: piece == 0 ? input.count : piece, head: head)
    precondition(whole == split, "outcome depends on the split: \(whole) vs \(split)")
}

/// A comparable summary of one parse: status, body, reuse and excess bytes, or the error's text.
private func parseResponse(_ input: [UInt8], piece: Int, head: Bool) -> String {
    var limits = HTTP1ResponseParser.Limits()
    limits.maxHeadBytes = 4096
    limits.maxBodyBytes = 4096
    var parser = HTTP1ResponseParser(limits: limits)
    parser.reset(head: head)
    var at = 0
    do {
        while at < input.count {
            let end = min(input.count, at + max(1, piece))
            let done = try input[at..<end].withUnsafeBytes { try parser.feed($0) }
            at = end
            if done { break }
        }
        // Bytes after a complete response count as excess whichever piece held them.
        var excess = parser.excessBytes
        if parser.isComplete && at < input.count { excess += input.count - at }
        guard try parser.isComplete || parser.finishAtEndOfStream() else { return "no response" }
        let keepAlive = parser.keepAlive
        let response = parser.takeResponse()
        precondition(response.body.count <= limits.maxBodyBytes, "body past the limit")
        precondition((100...999).contains(response.status), "status \(response.status)")
        return "\(response.status) \(response.body) \(response.headers) \(keepAlive) \(excess)"
    } catch {
        return "error \(error)"
    }
}
