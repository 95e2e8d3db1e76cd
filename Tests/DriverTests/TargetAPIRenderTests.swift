@testable import Driver
import XCTest

/// `${name}` templates as every request's path, headers and body use them.
final class TargetAPIRenderTests: XCTestCase {
    private func render(_ template: String, _ vars: [String: String]) -> (String, [String]) {
        var missing: [String] = []
        let out = TargetAPI.render(template, vars, &missing)
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
}
