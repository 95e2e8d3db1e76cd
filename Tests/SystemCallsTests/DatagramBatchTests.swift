import Bytes
import CLinux
import SystemCalls
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The batched datagram calls: one `sendmmsg` carries several datagrams in order, each to its own target; one
/// `recvmmsg` reads them all with their senders, a short batch means drained, and an empty socket would block.
final class DatagramBatchTests: DescriptorTestCase {
    private func boundUDP() -> (fd: Int32, address: sockaddr_in) {
        boundLoopback(Int32(SOCK_DGRAM.rawValue))
    }

    /// `count` one-byte datagrams (0, 1, …) from `sender` to `receiver`, in one `sendmmsg`.
    private func sendBytes(_ count: Int, from sender: (fd: Int32, address: sockaddr_in),
                           to receiver: (fd: Int32, address: sockaddr_in)) {
        let sends = DatagramSendBatch(capacity: count)
        for i in 0..<count { [UInt8(i)].withUnsafeBytes { sends.append(sender.fd, $0, to: receiver.address) } }
        sends.flush()
    }

    func testOneSendBatchArrivesInOrderAndOneReceiveReadsItAllWithItsSender() {
        let sender = boundUDP()
        let receiver = boundUDP()
        let sends = DatagramSendBatch(capacity: 8)
        for word in ["INVITE", "ACK", "", "BYE"] {
            Array(word.utf8).withUnsafeBytes { sends.append(sender.fd, $0, to: receiver.address) }
        }
        XCTAssertEqual(sends.pending, 4)
        sends.flush()
        XCTAssertEqual(sends.pending, 0)
        XCTAssertEqual(sends.failures, 0)
        let batch = DatagramBatch(capacity: 8, stride: 64)
        XCTAssertEqual(SystemCall.receiveDatagrams(receiver.fd, into: batch), .bytes(4))
        XCTAssertEqual((0..<batch.count).map { String(decoding: batch[$0], as: UTF8.self) },
                       ["INVITE", "ACK", "", "BYE"])
        XCTAssertEqual(batch.source(3).sin_port, sender.address.sin_port)
        XCTAssertEqual(SystemCall.receiveDatagrams(receiver.fd, into: batch), .wouldBlock)
    }

    func testAStampedBatchCarriesEachDatagramsKernelReceiveTimeOnTheRealTimeClock() {
        let sender = boundUDP()
        let receiver = boundUDP()
        XCTAssertEqual(clinux_set_receive_stamps(receiver.fd), 0)
        let before = clinux_realtime_ns()
        sendBytes(3, from: sender, to: receiver)
        let batch = DatagramBatch(capacity: 4, stride: 16, stamped: true)
        XCTAssertEqual(SystemCall.receiveDatagrams(receiver.fd, into: batch), .bytes(3))
        let after = clinux_realtime_ns()
        for i in 0..<3 {
            XCTAssertTrue((before...after).contains(batch.receivedAt(i)), "\(before) \(batch.receivedAt(i)) \(after)")
        }
        XCTAssertLessThanOrEqual(batch.receivedAt(0), batch.receivedAt(2))
    }

    func testABatchNotStampedOrASocketNotAskedReportsNoReceiveTime() {
        let sender = boundUDP()
        let receiver = boundUDP()
        sendBytes(2, from: sender, to: receiver)
        let stamped = DatagramBatch(capacity: 1, stride: 16, stamped: true)
        XCTAssertEqual(SystemCall.receiveDatagrams(receiver.fd, into: stamped), .bytes(1))
        XCTAssertEqual(stamped.receivedAt(0), 0)  // the socket did not ask for stamps
        let plain = DatagramBatch(capacity: 1, stride: 16)
        XCTAssertEqual(SystemCall.receiveDatagrams(receiver.fd, into: plain), .bytes(1))
        XCTAssertEqual(plain.receivedAt(0), 0)
    }

    func testAReceiveTakesNoMoreThanItsCapacityAndTheRestWaitsForTheNext() {
        let sender = boundUDP()
        let receiver = boundUDP()
        let sends = DatagramSendBatch(capacity: 2)
        for i in 0..<5 { [UInt8(i)].withUnsafeBytes { sends.append(sender.fd, $0, to: receiver.address) } }
        sends.flush()
        let batch = DatagramBatch(capacity: 3, stride: 16)
        XCTAssertEqual(SystemCall.receiveDatagrams(receiver.fd, into: batch), .bytes(3))
        XCTAssertEqual(SystemCall.receiveDatagrams(receiver.fd, into: batch), .bytes(2))
        XCTAssertEqual(batch[1].first, 4)
    }

    func testDatagramsForAnotherSocketFlushTheFirstSocketsOwn() {
        let first = boundUDP()
        let second = boundUDP()
        let receiver = boundUDP()
        let sends = DatagramSendBatch()
        [UInt8(1)].withUnsafeBytes { sends.append(first.fd, $0, to: receiver.address) }
        [UInt8(2)].withUnsafeBytes { sends.append(second.fd, $0, to: receiver.address) }
        XCTAssertEqual(sends.pending, 1)
        sends.flush()
        let batch = DatagramBatch()
        XCTAssertEqual(SystemCall.receiveDatagrams(receiver.fd, into: batch), .bytes(2))
        XCTAssertEqual(batch.source(0).sin_port, first.address.sin_port)
        XCTAssertEqual(batch.source(1).sin_port, second.address.sin_port)
    }

    func testADatagramTheKernelRefusesIsCountedAndTheRestStillGo() {
        let sender = boundUDP()
        let receiver = boundUDP()
        var nowhere = receiver.address
        nowhere.sin_family = sa_family_t(AF_INET6)  // the wrong family for this socket: EINVAL for that one
        let sends = DatagramSendBatch()
        [UInt8(1)].withUnsafeBytes { sends.append(sender.fd, $0, to: nowhere) }
        [UInt8(2)].withUnsafeBytes { sends.append(sender.fd, $0, to: receiver.address) }
        sends.flush()
        XCTAssertEqual(sends.failures, 1)
        let batch = DatagramBatch()
        XCTAssertEqual(SystemCall.receiveDatagrams(receiver.fd, into: batch), .bytes(1))
        XCTAssertEqual(batch[0].first, 2)
    }
}
