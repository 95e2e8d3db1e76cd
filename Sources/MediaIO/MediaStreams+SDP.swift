import Media
import SIP

extension MediaEndpoint {
    /// Where an SDP's audio goes: its connection address and audio port.
    public init(_ sdp: SDPSession) {
        self.init(host: sdp.address, port: sdp.port)
    }
}

extension MediaDirection {
    /// The direction an end's own SDP states.
    public init(_ direction: SDPSession.Direction) {
        switch direction {
        case .sendrecv: self = .sendrecv
        case .sendonly: self = .sendonly
        case .recvonly: self = .recvonly
        case .inactive: self = .inactive
        }
    }
}

extension MediaCodec {
    /// The first of an SDP's formats callstorm can send (PCMU before PCMA in the SDP's order), nil if none.
    public init?(_ sdp: SDPSession) {
        guard let codec = sdp.formats.lazy.compactMap({ MediaCodec(payloadType: $0) }).first else { return nil }
        self = codec
    }
}
