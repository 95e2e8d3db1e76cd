import CallModel
import Metrics
import Scenario
import Transport

/// Reading the target's answer to an action.
extension ActionSender {
    /// The answer as the flow needs it: outcome, captures and the views the mapping reads from it. An expected
    /// status whose body lacks what the action must return (a start's conversation, an unmerge's split, a view
    /// the mapping says every response carries) is a `bad_response`.
    func readAnswer(_ request: ActionRequest, _ result: Result<ClientResponse, TransportError>,
                    _ endpoint: APIMapping.Endpoint?) -> ActionAnswer {
        var answer = ActionAnswer(outcome: Self.outcome(of: result, endpoint))
        if answer.outcome != .fulfilled, case .success(let response) = result, response.status > 0 {
            answer.status = response.status
            answer.alreadyEnded = request.kind == .end && (api.mapping.alreadyEnded.contains(response.status)
                || response.header(Self.routeAlreadyEndedHeader) != nil)
        }
        guard answer.outcome == .fulfilled, case .success(let response) = result, let endpoint else { return answer }
        answer.captures = TargetAPI.captures(endpoint, from: response.body)
        for name in endpoint.captures.keys {
            // Per capture, so a path that never matches is named (first-contact diagnostics).
            countCapture(name, matched: answer.captures[name] != nil)
        }
        let reader = api.reader
        // One parse of the body for both views.
        let views = reader.answer(response.body, split: request.op != .start)
        if reader.hasMapping {
            answer.view = views.view
            if answer.view == nil, reader.viewRequired { answer.outcome = .failed(reason: "bad_response") }
        }
        if request.op == .start {
            answer.conversation = answer.captures["conversation.id"] ?? answer.view?.uuid
            if answer.conversation == nil { answer.outcome = .failed(reason: "bad_response") }
            return answer
        }
        answer.split = views.split
        answer.conversation = answer.captures["split.id"] ?? answer.split?.uuid
        if request.kind == .unmerge && answer.conversation == nil { answer.outcome = .failed(reason: "bad_response") }
        return answer
    }

    static func outcome(of result: Result<ClientResponse, TransportError>, _ endpoint: APIMapping.Endpoint?)
        -> ActionOutcome {
        switch result {
        case .success(let response) where endpoint?.accepts(response.status) == true: return .fulfilled
        case .success(let response): return .failed(reason: "http_\(response.status)")
        case .failure(.timeout): return .timedOut
        case .failure(let error): return .failed(reason: error.kind)
        }
    }
}
