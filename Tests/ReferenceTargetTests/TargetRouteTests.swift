@testable import ReferenceTarget
import XCTest

/// The API's paths read on bytes as `split(separator: "/")` read them: empty pieces skipped, the query cut off,
/// `v1` first, the piece count deciding the endpoint.
final class TargetRouteTests: XCTestCase {
    func testPathsReadAsTheSplitOnSlashesReadThem() {
        let cases: [(String, TargetRoute.Endpoint?)] = [
            ("/v1/devices", .devices),
            ("/v1/conversations", .conversations),
            ("//v1//health/", .health),
            ("/v1/conversations/c-1", .conversation("c-1")),
            ("/v1/conversations/c-1/join?trace=1", .action("c-1", "join")),
            ("/v1/conversations/c-1/join/more", .other),
            ("/v1/conversations/c/é", .action("c", "é")),
            ("/v1/devicesx", .other),
            ("/v1/health/x", .other),
            ("/v1", nil),
            ("/v2/devices", nil),
            ("/", nil),
            ("", nil),
            ("?/v1/devices", nil),
        ]
        for (path, endpoint) in cases {
            XCTAssertEqual(TargetRoute(path).endpoint, endpoint, path)
        }
    }

    func testTheQueryIsCutFromThePathTheRefusalNames() {
        XCTAssertEqual(TargetRoute("/v2/x?a=b").pathWithoutQuery, "/v2/x")
        XCTAssertEqual(TargetRoute("/v2/x").pathWithoutQuery, "/v2/x")
    }
}
