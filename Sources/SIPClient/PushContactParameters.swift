import SIP

/// RFC 8599 §4 Contact URI parameters of a UA that may be suspended and woken by a push: what a device's
/// registration says about how to wake it, so they live with the registration client rather than in the message
/// layer (which sees only `SIPParameters`).
public struct PushContactParameters: Sendable, Equatable {
    /// `apns` for Apple's service (`fcm` for Firebase).
    public var provider: String
    /// The device token (hex for APNs).
    public var prid: String
    /// `<TeamID>.<bundle>.voip` for a VoIP push topic.
    public var param: String

    public init(provider: String = "apns", prid: String, param: String) {
        self.provider = provider
        self.prid = prid
        self.param = param
    }

    /// `pn-param` for an APNs VoIP push: team id, bundle id, and the `voip` service.
    public static func apnsVoIP(token: String, team: String, bundle: String) -> PushContactParameters {
        PushContactParameters(prid: token, param: team + "." + bundle + ".voip")
    }

    /// Reads them from a Contact URI; nil when any of the three is absent.
    public init?(uri: String) {
        let params = SIPParameters(parsing: uri[(uri.firstIndex(of: ";") ?? uri.endIndex)...])
        guard let provider = params["pn-provider"], let prid = params["pn-prid"], let param = params["pn-param"]
        else { return nil }
        self.init(provider: provider, prid: prid, param: param)
    }

    /// `pn-provider`, `pn-prid` and `pn-param`, in that order, as the Contact URI carries them.
    public var parameters: SIPParameters {
        SIPParameters([("pn-provider", provider), ("pn-prid", prid), ("pn-param", param)])
    }

    /// `;pn-provider=apns;pn-prid=…;pn-param=…`, appended to the Contact URI inside its angle brackets.
    public var uriParameters: String { parameters.text }
}
