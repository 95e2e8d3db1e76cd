@testable import Driver
import XCTest

/// `${name}` templates as every request's path, headers and body use them.
final class TargetAPIRenderTests: XCTestCase {
    /// Both ways in: the one-off render (socket messages) and a compiled template (every HTTP request); one grammar
    /// (`CompiledTemplate`) serves both, and the literal expectations below pin it.
    private func render(_ template: String, _ values: [String: String],
                        file: StaticString = #filePath, line: UInt = #line) -> (String, [String]) {
        var vars = TemplateVars()
        for (name, value) in values { vars[name] = value }
        var missing: [String] = []
        let out = TargetAPI.render(template, vars, &missing)
        var compiledMissing: [String] = []
        let compiled = CompiledTemplate(template).render(vars, &compiledMissing)
        XCTAssertEqual(compiled, out, "compiled: \(template)", file: file, line: line)
        XCTAssertEqual(compiledMissing, missing, "compiled: \(template)", file: file, line: line)
        return (out, missing)
    }

    func testVariablesAreFilledAndUnknownOnesBecomeEmptyAndAreListed() {
        let (out, missing) = render("/v1/${conversation.id}/join?d=${device.id}&x=${nope}", [
            "conversation.id": "c-1", "device.id": "d-7"])
        XCTAssertEqual(out, "/v1/c-1/join?d=d-7&x=")
        XCTAssertEqual(missing, ["nope"])
    }

    func testADollarThatOpensNoClosedNameIsCopiedAsItIs() {
        XCTAssertEqual(render("price $5 ${a} $${a} ${unclosed", ["a": "A"]).0, "price $5 A $A ${unclosed")
        XCTAssertEqual(render("$", [:]).0, "$")
        XCTAssertEqual(render("${", [:]).0, "${")
        XCTAssertEqual(render("", [:]).0, "")
    }

    func testNonASCIITextAndValuesSurviveByteForByte() {
        let (out, _) = render("{\"name\":\"${n}\",\"note\":\"café ☎\"}", ["n": "Zoë 📞"])
        XCTAssertEqual(out, "{\"name\":\"Zoë 📞\",\"note\":\"café ☎\"}")
    }

    func testCallstormsValuesWinOverCapturesOfTheSameNameAndUnsetOnesLetThemShow() {
        var vars = TemplateVars()
        vars[.deviceID] = "dev-1"
        vars = vars.underlaid(with: ["device.id": "captured", "to.id": "dev-9", "session": "s-1"])
        vars[.video] = "true"
        var missing: [String] = []
        let out = CompiledTemplate("${device.id} ${to.id} ${session} ${video} ${member.id}").render(vars, &missing)
        XCTAssertEqual(out, "dev-1 dev-9 s-1 true ")
        XCTAssertEqual(missing, ["member.id"])
        XCTAssertEqual(vars["to.id"], "dev-9")
        XCTAssertEqual(vars["session"], "s-1")
    }

    /// A device's values come from its identity (kept, not copied into slots): each as the slots gave it before,
    /// `device.time` written from its number, a set slot winning over them and they over a capture.
    func testADevicesOwnValuesComeFromItsIdentityBetweenSetSlotsAndCaptures() {
        let identity = DeviceIdentity(index: 3, seed: 7, userLead: 2)
        var vars = TemplateVars(device: identity, timeMillis: 1_700_000_000_123)
            .underlaid(with: ["device.token": "captured", "device.time": "0", "session": "s-1"])
        var missing: [String] = []
        let template = CompiledTemplate("${device.id}|${device.handle}|${device.name}|${device.token}|"
            + "${device.handle.json}|${device.time}|${user.id}|${session}|${to.id}")
        XCTAssertEqual(template.render(vars, &missing), "dev-3|\(identity.handle.value)|\(identity.handle.displayName)|"
            + "\(identity.apnsToken)|\(handleJSON(identity.handle))|1700000000123|user-2|s-1|")
        XCTAssertEqual(missing, ["to.id"])
        vars[.deviceID] = "set"
        vars["device.time"] = "now"
        XCTAssertEqual(CompiledTemplate("${device.id} ${device.time}").render(vars, &missing), "set now")
        XCTAssertEqual(TemplateVars(device: DeviceIdentity(index: 4, seed: 7), timeMillis: -5)[.userID], "dev-4")
        XCTAssertEqual(TemplateVars(device: DeviceIdentity(index: 4, seed: 7), timeMillis: -5)[.deviceTime], "-5")
        vars[.deviceID] = nil
        XCTAssertEqual(vars[.deviceID], "dev-3", "an unset value lets the device's show again")
        XCTAssertLessThanOrEqual(TemplateVars.Name.allCases.count, 32, "TemplateVars.setNames has a bit per name")
    }

    func testTheReferenceMappingRendersEveryOperation() throws {
        let api = TargetAPI(nil)
        var vars: TemplateVars = ["conversation.id": "c-1", "device.id": "dev-2", "reason.json": "null",
                                  "device.reported_at": "5", "push.sent_at": "null"]
        vars[.deviceHandleJSON] = "{}"
        let join = try XCTUnwrap(api.request("join", vars: vars, baseURL: "http://h", timeoutMillis: 1))
        XCTAssertEqual(join.request.url, "http://h/v1/conversations/c-1/join")
        XCTAssertEqual(join.request.body, "{\"device\":\"dev-2\",\"reportedAt\":5,\"pushSentAt\":null}")
        XCTAssertEqual(join.request.headers, ["content-type: application/json"])
        XCTAssertEqual(join.missing, [])
        let decline = try XCTUnwrap(api.request("decline", vars: vars, baseURL: "http://h", timeoutMillis: 1))
        XCTAssertEqual(decline.request.url, "http://h/v1/conversations/c-1/end")
        XCTAssertEqual(decline.request.body, "{\"device\":\"dev-2\",\"reason\":\"declined\"}")
        XCTAssertNil(api.request("fly", vars: vars, baseURL: "http://h", timeoutMillis: 1))
    }

    /// The base URL goes before the path in the same String, with or without slots in the path.
    func testThePathIsWrittenAfterTheBaseURL() {
        var vars = TemplateVars()
        vars[.conversationID] = "c-☎"
        var missing: [String] = []
        XCTAssertEqual(CompiledTemplate("/v1/c").render(vars, &missing, after: "http://h:1"), "http://h:1/v1/c")
        XCTAssertEqual(CompiledTemplate("/v1/${conversation.id}/${x}").render(vars, &missing, after: "https://é"),
                       "https://é/v1/c-☎/")
        XCTAssertEqual(CompiledTemplate("${conversation.id}").render(vars, &missing), "c-☎")
        XCTAssertEqual(missing, ["x"])
    }
}
