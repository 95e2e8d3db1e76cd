import Media

/// The `rtp` target. Byte 0: bit 0 set reads the rest as one packet, checked by a write/parse round trip; clear,
/// the rest is cut into datagrams of (byte 0 >> 1) + 1 bytes fed to one `MediaSession`, 7 ms apart, so the
/// sequence books, jitter, the payload signature and the one-way-audio detector meet arbitrary packets. Malformed
/// input must be counted by kind, never crash.
func fuzzRTP(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    let body = Array(bytes.dropFirst())
    if first & 1 == 1 {
        roundTripRTP(body)
        return
    }
    let chunk = Int(first >> 1) + 1
    var session = MediaSession(settings: MediaStreamSettings(seed: 7))
    session.start(at: 1_000, direction: .sendrecv)
    var now: UInt64 = 1_000
    var packets = 0
    var start = 0
    var out: [UInt8] = []
    while start < body.count {
        let datagram = Array(body[start..<min(body.count, start + chunk)])
        start += chunk
        now += 7_000_000
        _ = datagram.withUnsafeBytes { session.receive($0, at: now) }
        _ = session.advance(to: now)
        while session.nextPacket(now: now, into: &out) { packets += 1 }
    }
    let report = session.report
    precondition(report.receiver.received + report.receiver.sequence.duplicates + report.malformed.total
                 + report.strays.ownPackets + report.strays.otherSources <= (body.count + chunk - 1) / chunk,
                 "more packets counted than datagrams fed")
    precondition(report.sent.packets == packets, "sent books disagree with packets written")
    _ = report.mos()
    _ = session.stop(at: now)
}

private func roundTripRTP(_ body: [UInt8]) {
    let parsed: (header: RTPHeader, payload: Range<Int>)
    switch parseRTP(body) {
    case .success(let value): parsed = value
    case .failure(let error):
        _ = (error.kind, error.description)
        return
    }
    precondition(parsed.payload.lowerBound >= parsed.header.byteCount && parsed.payload.upperBound <= body.count,
                 "a payload range outside the packet")
    var out: [UInt8] = []
    parsed.header.write(into: &out)
    out.append(contentsOf: body[parsed.payload])
    parsed.header.appendPadding(into: &out)
    guard case .success(let again) = parseRTP(out) else {
        preconditionFailure("a header callstorm wrote does not parse")
    }
    precondition(again.header == parsed.header, "the header changed in a write/parse round trip")
    precondition(Array(out[again.payload]) == Array(body[parsed.payload]), "the payload changed in a round trip")
    _ = body[parsed.payload].withUnsafeBytes { MediaPayload.signature($0) }
}

/// The `rtcp` target: the input as one compound datagram. What parses is written back (SR and RR) and must parse
/// to the same reports.
func fuzzRTCP(_ bytes: [UInt8]) {
    let packets: [RTCPPacket]
    switch parseRTCP(bytes) {
    case .success(let value): packets = value
    case .failure(let error):
        _ = (error.kind, error.description)
        return
    }
    let reports = packets.filter { if case .other = $0 { return false } else { return true } }
    guard !reports.isEmpty else { return }
    let written = RTCPPacket.writeCompound(reports)
    guard case .success(let again) = parseRTCP(written) else {
        preconditionFailure("a compound callstorm wrote does not parse")
    }
    precondition(again == reports, "reports changed in a write/parse round trip")
}

private func parseRTP(_ bytes: [UInt8]) -> Result<(header: RTPHeader, payload: Range<Int>), RTPParseError> {
    bytes.withUnsafeBytes { p in
        do {
            return .success(try RTPHeader.parse(p))
        } catch let error as RTPParseError {
            return .failure(error)
        } catch {
            preconditionFailure("untyped error \(error)")
        }
    }
}

private func parseRTCP(_ bytes: [UInt8]) -> Result<[RTCPPacket], RTCPParseError> {
    bytes.withUnsafeBytes { p in
        do {
            return .success(try RTCPPacket.parseCompound(p))
        } catch let error as RTCPParseError {
            return .failure(error)
        } catch {
            preconditionFailure("untyped error \(error)")
        }
    }
}
