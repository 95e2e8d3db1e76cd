/// One party of a call (a SIP From- or To-tag) as `query` reports it: its media, and the tags it is in dialogue
/// with (rtpengine 10.5's `subscribers`, or `in dialogue with` in older answers).
public struct RTPEngineTag: Equatable, Sendable {
    public var tag: String
    public var medias: [RTPEngineMedia]
    /// The tags this party's media goes to.
    public var peers: [String]

    init(tag: String, _ value: Bencode) {
        self.tag = value["tag"]?.text ?? tag
        medias = (value["medias"]?.list ?? []).map(RTPEngineMedia.init)
        var peers = (value["subscribers"]?.list ?? []).compactMap { $0["tag"]?.text }
        if peers.isEmpty, let other = value["in dialogue with"]?.text, !other.isEmpty { peers = [other] }
        self.peers = peers
    }

    /// What the relay received from this party over RTP (every media's RTP streams): the direction party → peers.
    public var sentRTP: RTPEngineCounts {
        streams.filter { !$0.isRTCP }.reduce(RTPEngineCounts()) { $0 + $1.received }
    }

    /// What the relay received from this party over RTCP.
    public var sentRTCP: RTPEngineCounts {
        streams.filter(\.isRTCP).reduce(RTPEngineCounts()) { $0 + $1.received }
    }

    /// The addresses the relay learned this party's RTP comes from (one per RTP stream it heard or was told of).
    public var learnedRTP: [RTPEngineEndpoint] {
        streams.filter { !$0.isRTCP }.compactMap(\.endpoint)
    }

    /// The ports of this party's RTP as the relay knows them: learned from its packets and given in its SDP (a
    /// server that rewrote the SDP's address keeps its port).
    public var rtpPorts: Set<Int> {
        Set(streams.filter { !$0.isRTCP }.flatMap { [$0.endpoint?.port, $0.advertised?.port].compactMap { $0 } })
    }

    /// The relay's own RTP ports for this party: where its packets must be sent to pass through the relay.
    public var relayRTPPorts: [Int] {
        streams.filter { !$0.isRTCP }.compactMap(\.localPort)
    }

    private var streams: [RTPEngineStream] { medias.flatMap(\.streams) }
}
