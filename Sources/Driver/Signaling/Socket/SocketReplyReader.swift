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

    private let status: JSONPattern.Slot?
    private let body: JSONPattern.Slot?
    private let ok: JSONPattern.Slot?
    private let error: JSONPattern.Slot?
    private let alreadyEnded: Set<String>

    /// The reply's fields added to `pattern`, the message's (`SocketMessageReader`).
    init(_ reply: APIMapping.Socket.Reply, into pattern: inout JSONPattern) {
        func at(_ path: String?) -> JSONPattern.Slot? { path.map { pattern.capture(ViewSlots.steps($0)) } }
        (status, body, ok, error) = (at(reply.status), at(reply.body), at(reply.ok), at(reply.error))
        alreadyEnded = Set(reply.alreadyEnded)
    }

    /// The reply as an HTTP answer: status 0 (a `bad_response`) when a mapped status or ok flag is missing or
    /// of the wrong type.
    func response(_ scan: JSONScan) -> ClientResponse {
        var content = scan.bytes
        // The body part's JSON text as the message has it, read by the HTTP answer's reader. It was built into a
        // JSONLite tree and written out again with its keys sorted: ~95,000 instructions a reply (a websocket call
        // of the capacity flow, issue 33), for the same values read from it.
        if let body { content = scan.text(body).map(Array.init) ?? [] }
        if let ok {
            guard let success = scan.bool(ok) else { return ClientResponse(status: 0, body: content) }
            if success { return ClientResponse(status: 200, body: content) }
            let word = error.flatMap { scan.string($0) }
            let ended = word.map(alreadyEnded.contains) ?? false
            return ClientResponse(status: Self.refusalStatus, body: content,
                                  headers: ended ? [(Self.alreadyEndedHeader, "1")] : [])
        }
        if let status { return ClientResponse(status: scan.int(status) ?? 0, body: content) }
        return ClientResponse(status: 200, body: content)
    }
}
