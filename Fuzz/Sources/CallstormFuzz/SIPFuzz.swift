import SIP

/// The `sip` target. Byte 0: bit 0 picks datagram (UDP) or stream (TCP) reading, the other bits the stream's
/// chunk size; the message bytes follow. Every message that parses is validated, read through each header
/// helper a user agent uses, serialized and parsed back (which must succeed with the same start line), answered
/// through a server transaction when it is a request, and its body read as SDP.
func fuzzSIP(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    let body = Array(bytes.dropFirst())
    if first & 1 == 0 {
        do {
            let message = try body.withUnsafeBufferPointer { p throws(SIPParseError) in
                try SIPParser.parse(datagram: p)
            }
            exercise(message, reliable: false)
        } catch {
            _ = (error.kind, error.description, error.losesFraming)
        }
        return
    }
    let chunk = max(1, Int(first >> 1))
    var parser = SIPStreamParser(maxHeadBytes: 4096, maxBodyBytes: 4096)
    var start = 0
    reading: while start < body.count {
        parser.append(Array(body[start..<min(body.count, start + chunk)]))
        start += chunk
        while true {
            do {
                guard let message = try parser.next() else { break }
                precondition(message.body.count <= 4096, "a body past the limit")
                exercise(message, reliable: true)
            } catch {
                precondition(parser.isBroken != nil, "a stream error that left the stream usable")
                break reading
            }
        }
    }
}

private func exercise(_ message: SIPMessage, reliable: Bool) {
    _ = (message.via, message.from, message.to, message.contacts, message.cseq, message.callID)
    if let via = message.via { precondition(message.branch == via.branch, "the branch lookup and the Via disagree") }
    if let to = message.to { precondition(message.toTag == to.tag, "the To tag lookup and the address disagree") }
    if let from = message.from {
        precondition(message.fromTag == from.tag, "the kept From tag and the address disagree")
    }
    exerciseHead(message)
    for name in [SIPHeaderName.wwwAuthenticate, .proxyAuthenticate] {
        if let value = message.header(name), let challenge = DigestChallenge(value) {
            _ = DigestCredentials(username: "u", password: "p").authorization(
                for: challenge, method: .register, uri: "sip:x", nonceCount: 1, cnonce: "c")
        }
    }
    if let contact = message.contact {
        // The URI's own parameters, as SIPClient's PushContactParameters(uri:) reads RFC 8599's from them.
        _ = SIPParameters(parsing: contact.uri[(contact.uri.firstIndex(of: ";") ?? contact.uri.endIndex)...])["pn-prid"]
    }
    _ = SDPSession(parsing: message.body).map { SDPSession.answer(to: $0, address: "127.0.0.1", port: 4000)?.body }
    let again: SIPMessage
    do {
        again = try SIPParser.parse(datagram: message.serialized())
    } catch {
        preconditionFailure("a parsed message that does not parse back after serializing: \(error)")
    }
    precondition(again.startLine == message.startLine, "the start line changed in a round trip")
    // Names and values, Content-Length aside; a value's ends trimmed (a folded line of spaces alone leaves a
    // trailing space in the value, which the parse after the round trip trims).
    let blank = { (c: Character) in c == " " || c == "\t" }
    let lines = { (m: SIPMessage) in
        m.headers.filter { !SIPHeaderName.contentLength.matches($0.name) }.map {
            SIPHeader($0.name, String($0.value.drop(while: blank).reversed().drop(while: blank).reversed()))
        }
    }
    precondition(lines(again) == lines(message), "the header lines changed in a round trip")
    guard (try? SIPParser.validate(message)) != nil, message.isRequest else { return }
    var transaction = ServerTransaction(request: message, timers: SIPTimerValues(reliable: reliable))
    _ = transaction.respond(message.response(400, toTag: "t"), now: 1)
    _ = transaction.receive(message, now: 2)
    _ = transaction.advance(to: 100_000_000_000)
    if let dialog = SIPDialog(uas: message, localTag: "t") { _ = dialog.ack(cseq: 1).serialized() }
}

/// The header lines kept as bytes: the list read from them builds the same message again, and a response's To
/// with a tag written over the bytes (`;tag=` appended where the address is already in its written form) is what
/// parsing the address, setting the tag and writing it gives.
private func exerciseHead(_ message: SIPMessage) {
    // The list is read with invalid UTF-8 replaced (U+FFFD), while the bytes keep what came and are what a
    // response copies: the two agree where the head is valid UTF-8.
    if String(validating: message.serialized(), as: UTF8.self) != nil {
        precondition(SIPMessage(startLine: message.startLine, headers: message.headers, body: message.body) == message,
                     "the header list and the header bytes disagree")
    }
    guard let to = message.header(.to) else { return }
    var expected = to
    if var address = SIPAddress(to), address.tag == nil {
        address.tag = "t1"
        expected = address.text
    }
    precondition(message.response(200, toTag: "t1").header(.to) == expected, "a response's tagged To differs")
}
