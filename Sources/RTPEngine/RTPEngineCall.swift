/// One call as rtpengine's `query` (or `delete`) answer reports it: `tags` → `medias` → `streams` → `stats`,
/// plus the call's `totals`. Per direction: `packets(from:)` is what the relay received from one party, which it
/// forwards to that party's peers.
public struct RTPEngineCall: Equatable, Sendable {
    public var callID: String
    /// Seconds since the epoch when rtpengine made the call (its first offer).
    public var created: Int?
    /// The parties, by tag, in tag order.
    public var tags: [RTPEngineTag]
    /// Every RTP packet the relay received for the call.
    public var totalRTP: RTPEngineCounts
    public var totalRTCP: RTPEngineCounts

    public init(callID: String, answer: [String: Bencode]) throws {
        guard let tags = answer["tags"]?.dictionary else {
            throw NGError.malformed(command: "query", detail: "no 'tags' dictionary for call '\(callID)'")
        }
        self.callID = callID
        created = answer["created"]?.int
        self.tags = tags.sorted { $0.key < $1.key }.map { RTPEngineTag(tag: $0.key, $0.value) }
        totalRTP = RTPEngineCounts(answer["totals"]?["RTP"])
        totalRTCP = RTPEngineCounts(answer["totals"]?["RTCP"])
    }

    /// The party with `tag`.
    public func tag(_ tag: String) -> RTPEngineTag? { tags.first { $0.tag == tag } }

    /// RTP the relay received from the party `tag` (nil when the call has no such party).
    public func packets(from tag: String) -> RTPEngineCounts? { self.tag(tag)?.sentRTP }
}
