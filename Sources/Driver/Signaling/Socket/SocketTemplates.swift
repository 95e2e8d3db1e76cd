import Scenario

/// The socket mapping's templates cut once (`CompiledTemplate`), as `TargetAPI` cuts the HTTP endpoints': each
/// socket action and each socket open rendered its template from the text again (`TargetAPI.render`: a scan for
/// `$`, the parts built, each name hashed), once per action of every call (issue 33). Same text as that render.
struct SocketTemplates {
    let url: CompiledTemplate
    let headers: [CompiledTemplate]
    let hello: CompiledTemplate?
    let actions: [String: CompiledTemplate]

    init(_ mapping: APIMapping.Socket) {
        url = CompiledTemplate(mapping.url)
        headers = mapping.headers.map(CompiledTemplate.init)
        hello = mapping.hello.map(CompiledTemplate.init)
        actions = mapping.actions.mapValues(CompiledTemplate.init)
    }
}
