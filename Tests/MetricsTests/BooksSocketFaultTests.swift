import Metrics
import XCTest

/// The socket book with faults on: sockets callstorm's faults ended are in their rows as usual, and the book says
/// how many of the ends were callstorm's, so none is read as the target's.
final class BooksSocketFaultTests: XCTestCase {
    func testTheSocketBookSaysHowManyEndsInjectedFaultsCaused() {
        var c: [String: Int64] = ["socket.opened": 10, "socket.closed.server": 3, "socket.lost": 5,
                                  "socket.open_at_stop": 2]
        c[MetricName.socketLostInjected] = 4
        c[MetricName.socketClosedServerInjected] = 3
        let books = Books(counters: c)
        XCTAssertEqual(books.sockets?.balanced, true)
        XCTAssertEqual(books.sockets?.endedByFaults, 7)
        XCTAssertTrue(books.lines.contains("sockets: opened 10 = closed by device 0 + closed by server 3 + lost 5 "
            + "+ open at stop 2 (7 of the closed and lost were ended by injected faults)"), "\(books.lines)")
        c[MetricName.socketLostInjected] = nil
        c[MetricName.socketClosedServerInjected] = nil
        XCTAssertFalse(Books(counters: c).lines.contains { $0.contains("injected") }, "no faults, no clause")
    }
}
