@testable import SIPClient
import SIP
import XCTest

/// The pool's total sums its agents' tallies and folds the sum once (`MessageTally.add`): the books must come out
/// as folding each agent's tally on its own gives them, keys counted 0 (a retransmission's) included.
final class MessageTallyTests: XCTestCase {
    func testASummedTallyFoldsToTheBooksOfEachFoldedOnItsOwn() {
        var a = MessageTally(), b = MessageTally(), quiet = MessageTally()
        a.requestSent(.invite, 1)
        a.requestSent(.ack, 0)
        a.responseReceived(180)
        b.requestReceived(.invite)
        b.requestSent(.bye, 1)
        b.responseSent(200, 1)
        b.responseReceived(180)
        var each = SIPCounters()
        var copyA = a, copyB = b
        copyA.fold(into: &each)
        copyB.fold(into: &each)
        var sum = MessageTally()
        sum.add(a)
        sum.add(quiet)
        sum.add(b)
        var books = SIPCounters()
        sum.fold(into: &books)
        XCTAssertEqual(books, each)
        XCTAssertEqual(books.requestsSent, ["INVITE": 1, "ACK": 0, "BYE": 1])
        XCTAssertEqual(books.responsesReceived, [180: 2])
        XCTAssertEqual(books.requestsReceived, ["INVITE": 1])
    }
}
