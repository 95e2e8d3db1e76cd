/// One stream (an RTP or an RTCP flow) of one party's media, as `query` reports it. rtpengine keeps a party's
/// streams under its own tag: `localPort` is where that party's packets arrive at the relay, `endpoint` the
/// address it learned they come from (the SDP's until the first packet, then the packets' source), and `received`
/// what came in from that party, i.e. the direction party → its peers.
public struct RTPEngineStream: Equatable, Sendable {
    public var localPort: Int?
    public var localAddress: String?
    /// Where this party's packets come from (learned), and where the relay sends its peers' packets.
    public var endpoint: RTPEngineEndpoint?
    /// The address this party's SDP gave.
    public var advertised: RTPEngineEndpoint?
    /// An RTCP stream (flag `RTCP`) rather than RTP.
    public var isRTCP: Bool
    /// Packets received from this party on this stream.
    public var received: RTPEngineCounts
    /// Seconds since the epoch of the last packet received; nil when none came.
    public var lastPacket: Int?

    init(_ value: Bencode) {
        localPort = value["local port"]?.int
        localAddress = value["local address"]?.text
        endpoint = RTPEngineEndpoint(value["endpoint"])
        advertised = RTPEngineEndpoint(value["advertised endpoint"])
        isRTCP = (value["flags"]?.list ?? []).contains { $0.text == "RTCP" }
        received = RTPEngineCounts(value["stats"])
        lastPacket = value["last packet"]?.int.flatMap { $0 > 0 ? $0 : nil }
    }
}

/// One m= line of one party, with its streams.
public struct RTPEngineMedia: Equatable, Sendable {
    /// The m= line's position, from 1.
    public var index: Int
    /// `audio`, `video`.
    public var type: String
    /// `RTP/AVP`, `RTP/SAVP`.
    public var transport: String
    /// The codec rtpengine settled on (`PCMU/8000`), when it says.
    public var codec: String?
    /// rtpengine's flags for the media (`send`, `recv`, `initialized`).
    public var flags: [String]
    public var streams: [RTPEngineStream]

    init(_ value: Bencode) {
        index = value["index"]?.int ?? 0
        type = value["type"]?.text ?? ""
        transport = value["protocol"]?.text ?? ""
        codec = value["codec"]?.text
        flags = (value["flags"]?.list ?? []).compactMap(\.text)
        streams = (value["streams"]?.list ?? []).map(RTPEngineStream.init)
    }
}
