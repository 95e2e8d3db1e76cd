import Kamailio

/// What Kamailio's shipped configuration needs to route media through this rtpengine (deploy/kamailio's
/// `WITH_RTPENGINE`). Kamailio's rtpengine module pings its rtpengine when it starts and leaves one that did not
/// answer unused for a minute, so start rtpengine first.
extension RTPEngineServer {
    /// The module's `rtpengine_sock` for this rtpengine: `udp:<interface>:<ng port>`.
    public var kamailioSocket: String { "udp:\(options.interface):\(ngPort)" }

    /// The `-A` defines for this rtpengine; `offerOnly` rewrites offers but never answers, `lostAnswer` hands
    /// rtpengine the callee's answer with a wrong address (the two broken variants of docs/MEDIA.md).
    public func kamailioDefines(offerOnly: Bool = false, lostAnswer: Bool = false) -> [String] {
        KamailioOptions.rtpengineDefines(socket: kamailioSocket, offerOnly: offerOnly, lostAnswer: lostAnswer)
    }
}

extension KamailioOptions {
    /// The defines that put rtpengine at `socket` in the media path: `WITH_RTPENGINE`, `RTPENGINE_SOCK`, and
    /// `WITH_RTPENGINE_OFFER_ONLY` for the variant that never hands rtpengine the callee's answer,
    /// `WITH_RTPENGINE_LOST_ANSWER` for the one that hands it a wrong address for the callee.
    public static func rtpengineDefines(socket: String, offerOnly: Bool = false,
                                        lostAnswer: Bool = false) -> [String] {
        ["WITH_RTPENGINE", "RTPENGINE_SOCK=\"\(socket)\""] + (offerOnly ? ["WITH_RTPENGINE_OFFER_ONLY"] : [])
            + (lostAnswer ? ["WITH_RTPENGINE_LOST_ANSWER"] : [])
    }
}
