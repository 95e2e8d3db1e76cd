import TextEscaping

/// A `sip` line (`HistoryText.sip`) from parts made once: the device's middle and the message's end are the same
/// for every line of a device and of a label, so only the time and the Call-ID are written per line. The writer of
/// the whole line quoted and checked the device and the label again at every message (~30 lines a hold call);
/// with the parts a line is the time's digits, one quoted Call-ID and two copies (issue 33, s54). The bytes are
/// `HistoryText.sip`'s (`HistoryTextSIPPartsTests` pins them together).
extension HistoryText {
    /// What a `sip` line holds between its time and its Call-ID: `,"type":"sip","device":"<device>","conversation":`.
    public static func sipMiddle(device: String, into o: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64 + JSONLineWriter.bound(device)) { scratch in
            var w = JSONLineWriter(scratch)
            w.raw(",\"type\":\"sip\",\"device\":"); w.quoted(device)
            w.raw(",\"conversation\":")
            w.append(to: &o)
        }
    }

    /// What a `sip` line holds after its Call-ID: `,"sent":<sent>,"message":"<message>"}`.
    public static func sipEnd(sent: Bool, message: String, into o: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64 + JSONLineWriter.bound(message)) { scratch in
            var w = JSONLineWriter(scratch)
            if sent { w.raw(",\"sent\":true,\"message\":") } else { w.raw(",\"sent\":false,\"message\":") }
            w.quoted(message)
            w.byte(UInt8(ascii: "}"))
            w.append(to: &o)
        }
    }

    /// The `sip` line of `HistoryText.sip(t:device:conversation:sent:message:into:)` from the device's `middle`
    /// (`sipMiddle`) and the message's `end` (`sipEnd`).
    public static func sip(t: UInt64, middle: UnsafeBufferPointer<UInt8>, conversation: String,
                           end: UnsafeBufferPointer<UInt8>, into o: inout [UInt8]) {
        let capacity = 8 + JSONLineWriter.integerBound + middle.count + JSONLineWriter.bound(conversation) + end.count
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { scratch in
            var w = JSONLineWriter(scratch)
            w.raw("{\"t\":"); w.integer(t)
            w.bytes(middle)
            w.quoted(conversation)
            w.bytes(end)
            w.append(to: &o)
        }
    }
}

extension JSONLineWriter {
    /// Bytes written before, copied as they are.
    mutating func bytes(_ b: UnsafeBufferPointer<UInt8>) {
        guard let source = b.baseAddress else { return }
        (base + count).update(from: source, count: b.count)
        count += b.count
    }
}
