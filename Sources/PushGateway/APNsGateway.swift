import CLinux
import Foundation
import HTTPServer
import Synchronization

/// The push gateway's APNs ingress: `POST /3/device/<token>` answered exactly as APNs would, accepted pushes
/// handed to the sink. Safe to call from any server thread.
public final class APNsGateway: HTTPHandler {
    public struct Stats: Sendable, Equatable {
        public var accepted: Int
        public var rejected: [String: Int]
    }

    private let validator: APNsValidator
    private let sink: PushSink
    private let accepted = Atomic<Int>(0)
    private let rejected = Mutex<[String: Int]>([:])
    /// Called for every answer (for `callstorm gateway`'s log); nil in load runs.
    private let log: (@Sendable (String) -> Void)?

    public init(validator: APNsValidator = APNsValidator(), sink: PushSink, log: (@Sendable (String) -> Void)? = nil) {
        self.validator = validator
        self.sink = sink
        self.log = log
    }

    public var stats: Stats {
        Stats(accepted: accepted.load(ordering: .relaxed), rejected: rejected.withLock { $0 })
    }

    public func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        respond(answer(request))
    }

    /// The whole decision for one request; separate from `handle` so tests need no socket.
    public func answer(_ request: HTTPRequest) -> HTTPResponse {
        let now = clinux_monotonic_ns()
        let given = request.header("apns-id")
        let apnsID = given ?? UUID().uuidString.lowercased()
        let idHeader = HTTPHeader(name: "apns-id", value: apnsID)
        if let given, !APNsValidator.isValidAPNsID(given) {
            return reject(APNsRejection(.badMessageId, detail: given), idHeader: idHeader, path: request.path)
        }
        let headers = request.headers.map { (name: $0.name, value: $0.value) }
        let epoch = Int64(Date().timeIntervalSince1970)
        switch validator.validate(method: request.method, path: request.path, headers: headers, body: request.body,
                                  apnsID: apnsID, nowNanos: now, nowEpochSeconds: epoch) {
        case .failure(let rejection):
            return reject(rejection, idHeader: idHeader, path: request.path)
        case .success(let push):
            if let rejection = sink.accept(push) { return reject(rejection, idHeader: idHeader, path: request.path) }
            accepted.add(1, ordering: .relaxed)
            log?("200 \(push.pushType.rawValue) \(request.path) apns-id=\(apnsID)")
            return HTTPResponse(status: 200, headers: [idHeader], body: [])
        }
    }

    private func reject(_ rejection: APNsRejection, idHeader: HTTPHeader, path: String) -> HTTPResponse {
        rejected.withLock { $0[rejection.reason.rawValue, default: 0] += 1 }
        log?("\(rejection) \(path) apns-id=\(idHeader.value)")
        return HTTPResponse.json(rejection.status, rejection.body, headers: [idHeader])
    }
}
