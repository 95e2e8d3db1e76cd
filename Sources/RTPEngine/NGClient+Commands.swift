/// The ng commands callstorm uses, with the answers typed. Flags and options rtpengine's documentation lists go
/// into `options` as they are spelled there (`"flags": ["trust-address"]`, `"replace": ["origin"]`,
/// `"ICE": "remove"`).
extension NGClient {
    /// `ping`: rtpengine answers `pong` when it is up.
    public func ping() throws {
        _ = try command(["command": "ping"], expecting: ["pong"])
    }

    /// `offer`: hands rtpengine the caller's SDP (call `callID`, caller tag `fromTag`); returns the SDP to pass
    /// on to the callee, its addresses and ports rtpengine's own.
    public func offer(callID: String, fromTag: String, sdp: String, options: [String: Bencode] = [:]) throws
        -> String {
        var body = options
        body["command"] = "offer"
        body["call-id"] = .string(callID)
        body["from-tag"] = .string(fromTag)
        body["sdp"] = .string(sdp)
        return try rewrittenSDP(command(body), command: "offer")
    }

    /// `answer`: hands rtpengine the callee's SDP (its tag `toTag`); returns the SDP to pass back to the caller.
    public func answer(callID: String, fromTag: String, toTag: String, sdp: String,
                       options: [String: Bencode] = [:]) throws -> String {
        var body = options
        body["command"] = "answer"
        body["call-id"] = .string(callID)
        body["from-tag"] = .string(fromTag)
        body["to-tag"] = .string(toTag)
        body["sdp"] = .string(sdp)
        return try rewrittenSDP(command(body), command: "answer")
    }

    /// `delete`: ends the call and frees its ports. Given the caller's `fromTag`, rtpengine 10.5 answers with the
    /// call's final statistics (as `query` would), returned here; nil when it sent none (no tag given).
    @discardableResult
    public func delete(callID: String, fromTag: String? = nil) throws -> RTPEngineCall? {
        var body: [String: Bencode] = ["command": "delete", "call-id": .string(callID)]
        if let fromTag { body["from-tag"] = .string(fromTag) }
        let answer = try command(body)
        return answer["tags"] == nil ? nil : try RTPEngineCall(callID: callID, answer: answer)
    }

    /// `query`: the call's statistics now, per tag, media and stream.
    public func query(callID: String) throws -> RTPEngineCall {
        try RTPEngineCall(callID: callID, answer: command(["command": "query", "call-id": .string(callID)]))
    }

    /// `list`: the Call-IDs rtpengine holds, at most `limit` of them.
    public func list(limit: Int = 1000) throws -> [String] {
        let answer = try command(["command": "list", "limit": .integer(limit)])
        guard let calls = answer["calls"]?.list else {
            throw NGError.malformed(command: "list", detail: "no 'calls' list")
        }
        return calls.compactMap(\.text)
    }

    private func rewrittenSDP(_ answer: [String: Bencode], command: String) throws -> String {
        guard let sdp = answer["sdp"]?.text else { throw NGError.malformed(command: command, detail: "no 'sdp'") }
        return sdp
    }
}
