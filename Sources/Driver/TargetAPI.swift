import Foundation
import Scenario
import TextEscaping

/// The requests devices send, as templates: the reference protocol is one mapping, a team's own server another
/// (`target.api`), and both go through the same code.
struct TargetAPI: Sendable {
    let mapping: APIMapping
    /// Reads views and pushes with the mapping's paths and words.
    let reader: ViewReader
    /// Each operation's path, headers and body cut into bytes and `${…}` slots once (`decline` falls back to
    /// `end` here too), so a request copies bytes and looks up names instead of scanning its templates.
    private let compiled: [String: CompiledEndpoint]

    init(_ mapping: APIMapping?, handles: HandleBook? = nil) {
        self.mapping = mapping ?? Self.referenceMapping
        self.reader = ViewReader(view: self.mapping.view, push: self.mapping.push, handles: handles)
        var compiled = self.mapping.endpoints.mapValues(CompiledEndpoint.init)
        if compiled["decline"] == nil, let end = compiled["end"] { compiled["decline"] = end }
        self.compiled = compiled
    }

    /// Whether the final-view check can run: the server's views are mapped and can be read back.
    var readsViews: Bool { mapping.view != nil && mapping.endpoints["get"] != nil }

    static let referenceMapping: APIMapping = {
        let member = "{\"device\":\"${device.id}\"}"
        func post(_ path: String, _ body: String, expect: Int = 200) -> APIMapping.Endpoint {
            APIMapping.Endpoint(method: "POST", path: path, headers: ["content-type: application/json"], body: body,
                                expect: [expect])
        }
        return APIMapping(endpoints: [
            "register": post("/v1/devices", "{\"id\":\"${device.id}\",\"handle\":${device.handle.json}," +
                             "\"apnsToken\":\"${device.token}\"}", expect: 201),
            "start": post("/v1/conversations", "{\"caller\":\"${device.id}\",\"handles\":${to.handles}," +
                          "\"video\":${video},\"capabilities\":${capabilities}}", expect: 201),
            // The device's report time (its clock) and the push's send time (the target's), for a server that
            // measures push-to-report from device timestamps.
            "join": post("/v1/conversations/${conversation.id}/join", "{\"device\":\"${device.id}\"," +
                         "\"reportedAt\":${device.reported_at},\"pushSentAt\":${push.sent_at}}"),
            "decline": post("/v1/conversations/${conversation.id}/end",
                            "{\"device\":\"${device.id}\",\"reason\":\"declined\"}"),
            "end": post("/v1/conversations/${conversation.id}/end", "{\"device\":\"${device.id}\",\"reason\":${reason.json}}"),
            "pause": post("/v1/conversations/${conversation.id}/pause", member),
            "resume": post("/v1/conversations/${conversation.id}/resume", member),
            "merge": post("/v1/conversations/${conversation.id}/merge",
                          "{\"device\":\"${device.id}\",\"with\":\"${with.id}\"}"),
            "unmerge": post("/v1/conversations/${conversation.id}/unmerge",
                            "{\"device\":\"${device.id}\",\"member\":\"${member.id}\"}"),
            "get": APIMapping.Endpoint(method: "GET", path: "/v1/conversations/${conversation.id}", expect: [200]),
        ], push: .reference, view: .reference, socket: referenceSocket)
    }()

    /// The reference target's event channel (docs/PROTOCOL.md "Event channel"): events read like its pushes,
    /// every member action over the socket with the request id echoed, replies `{id, status, body}`.
    static let referenceSocket: APIMapping.Socket = {
        func action(_ op: String, _ extra: String = "") -> String {
            "{\"id\":\"${request.id}\",\"op\":\"\(op)\",\"conversation\":\"${conversation.id}\"," +
                "\"device\":\"${device.id}\"\(extra)}"
        }
        var events = APIMapping.PushFields.reference
        events.capabilities = nil
        events.handle = nil
        events.version = nil
        return APIMapping.Socket(
            url: "/v1/events?device=${device.id}", events: events,
            actions: [
                "join": action("join", ",\"reportedAt\":${device.reported_at},\"pushSentAt\":${push.sent_at}"),
                "decline": action("end", ",\"reason\":\"declined\""),
                "end": action("end", ",\"reason\":${reason.json}"),
                "pause": action("pause"), "resume": action("resume"),
                "merge": action("merge", ",\"with\":\"${with.id}\""),
                "unmerge": action("unmerge", ",\"member\":\"${member.id}\""),
            ],
            reply: APIMapping.Socket.Reply(id: "$.id", status: "$.status", body: "$.body"))
    }()

    /// The request for `op` with `${…}` filled in from `vars`; nil when the mapping has no such operation.
    /// Names with no value become empty and are listed in `missing`.
    func request(_ op: String, vars: TemplateVars, baseURL: String, timeoutMillis: Int)
        -> (request: ClientRequestParts, missing: [String])? {
        guard let compiled = compiled[op] else { return nil }
        var missing: [String] = []
        let url = compiled.path.render(vars, &missing, after: baseURL)
        let body = compiled.body?.render(vars, &missing) ?? ""
        let headers = compiled.headers.map { $0.render(vars, &missing) }
        return (ClientRequestParts(method: compiled.endpoint.method, url: url, headers: headers,
                                   body: body, endpoint: compiled.endpoint), missing)
    }

    /// Fills `${name}` from `vars`: a template used once (the socket mapping's lines), read by the same grammar
    /// as the compiled endpoints' (`CompiledTemplate`: a `$` not opening a closed `${…}` is literal text, a name
    /// with no value renders empty and is listed in `missing`), so the two can never disagree.
    static func render(_ template: String, _ vars: TemplateVars, _ missing: inout [String]) -> String {
        guard template.utf8.contains(UInt8(ascii: "$")) else { return template }
        return CompiledTemplate(template).render(vars, &missing)
    }

    /// Values the endpoint's `capture` paths find in a response body: a string as it stands, a number as an
    /// integer when it is one, else as Swift prints a Double, and a boolean as `1` or `0` (what the Foundation
    /// reader this replaced gave: its booleans cast to Int first). Read with JSONLite, the devices' own grammar;
    /// a number beyond 2^53, which a Double may not hold exactly (a 64-bit id), is read again with Foundation's
    /// reader, which keeps every digit of an integer.
    static func captures(_ endpoint: APIMapping.Endpoint, from body: [UInt8]) -> [String: String] {
        guard !endpoint.captures.isEmpty, let json = JSONLite.parse(body) else { return [:] }
        var out: [String: String] = [:]
        var inexact: [(name: String, path: JSONPath)] = []
        for (name, path) in endpoint.captures {
            guard let parsed = JSONPath(path) else { continue }
            guard let value = json.value(at: parsed.steps.map(ViewSlots.step)) else { continue }
            if case .number(let d) = value, abs(d) >= 9_007_199_254_740_992 {
                inexact.append((name, parsed))
            } else if let text = captureText(value) {
                out[name] = text
            }
        }
        if !inexact.isEmpty,
           let tree = try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]) {
            for (name, path) in inexact { out[name] = path.string(in: tree) }
        }
        return out
    }

    private static func captureText(_ value: JSONLite.Value) -> String? {
        switch value {
        case .string(let s): return s
        case .bool(let b): return b ? "1" : "0"
        case .number(let d):
            if d.rounded() == d, abs(d) < 9.2e18 { return String(Int(d)) }
            return String(d)
        case .null, .array, .object: return nil
        }
    }
}

/// An endpoint's templates, compiled once (`TargetAPI.compiled`).
private struct CompiledEndpoint: Sendable {
    let endpoint: APIMapping.Endpoint
    let path: CompiledTemplate
    let headers: [CompiledTemplate]
    let body: CompiledTemplate?

    init(_ endpoint: APIMapping.Endpoint) {
        self.endpoint = endpoint
        path = CompiledTemplate(endpoint.path)
        headers = endpoint.headers.map(CompiledTemplate.init)
        body = endpoint.body.map(CompiledTemplate.init)
    }
}

struct ClientRequestParts {
    let method: String
    let url: String
    let headers: [String]
    let body: String
    let endpoint: APIMapping.Endpoint
}
