import Scenario
import TextEscaping
import Transport

/// How a server's reply to an action sent over its socket reads as an HTTP answer (`target.api.socket.reply`),
/// so the action is judged, captured and fulfilled by the same code as over HTTP.
///
/// A server may answer with a status (`status`), with a success flag (`ok`: true reads as 200, false as 409, a
/// refusal as a Conflict is over HTTP, so a device that has seen its call end takes it as already ended), or say
/// nothing of the kind (every reply reads as 200). A refusal whose `error` word is in `already_ended` carries
/// `alreadyEndedHeader`, which the answer's reader takes as an HTTP status in `target.api.already_ended`.
struct SocketReplyReader: Sendable {
    /// The header a route sets when the refusal said the conversation had already ended (`ActionRoute`).
    static let alreadyEndedHeader = ActionSender.routeAlreadyEndedHeader
    static let refusalStatus = 409

    private let status: JSONPath?
    private let body: JSONPath?
    private let ok: JSONPath?
    private let error: JSONPath?
    private let alreadyEnded: Set<String>

    init(_ reply: APIMapping.Socket.Reply) {
        status = reply.status.flatMap(JSONPath.init)
        body = reply.body.flatMap(JSONPath.init)
        ok = reply.ok.flatMap(JSONPath.init)
        error = reply.error.flatMap(JSONPath.init)
        alreadyEnded = Set(reply.alreadyEnded)
    }

    /// The reply as an HTTP answer: status 0 (a `bad_response`) when a mapped status or ok flag is missing or
    /// of the wrong type.
    func response(_ root: JSONLite.Value, _ bytes: [UInt8]) -> ClientResponse {
        var content = bytes
        if let body { content = body.value(in: root).map { Array($0.text.utf8) } ?? [] }
        if let ok {
            guard let success = ok.value(in: root)?.boolValue else { return ClientResponse(status: 0, body: content) }
            if success { return ClientResponse(status: 200, body: content) }
            let word = error?.value(in: root)?.stringValue
            let ended = word.map(alreadyEnded.contains) ?? false
            return ClientResponse(status: Self.refusalStatus, body: content,
                                  headers: ended ? [(Self.alreadyEndedHeader, "1")] : [])
        }
        if let status { return ClientResponse(status: status.value(in: root)?.intValue ?? 0, body: content) }
        return ClientResponse(status: 200, body: content)
    }
}
