/// The request a transaction reads no more (`ClientTransaction.request`, `ServerTransaction.request` once their
/// final response is in): an empty request of the same method, no header and no body, shared by every transaction
/// of the usual methods, so that the request itself (its head, body and texts, ~2 KB) goes when the layer above
/// lets it go, not with the transaction 32 s later (docs/SIP.md, 2026-12-07).
extension SIPMessage {
    private static let spentInvite = SIPMessage.request(.invite, uri: "")
    private static let spentBye = SIPMessage.request(.bye, uri: "")
    private static let spentRegister = SIPMessage.request(.register, uri: "")

    /// The spent request of `method` (an OPTIONS when none is known, as the layer's keys read a request without
    /// one): a shared one for INVITE, BYE and REGISTER, a new one of any other method.
    static func spent(_ method: SIPMethod?) -> SIPMessage {
        switch method {
        case .invite?: return spentInvite
        case .bye?: return spentBye
        case .register?: return spentRegister
        default: return SIPMessage.request(method ?? .options, uri: "")
        }
    }
}
