/// A reopened agent's headers moved to its new port (`SIPLocalHeaders.moved(toPort:)`, issue 33): where the port's
/// digits stand in each piece, and the copy of a piece around new digits.
extension SIPLocalHeaders {
    /// Where the port's digits start in each piece that names it (offsets into its bytes; a head names it twice,
    /// in Via and in Contact).
    struct PortSpots {
        var via: Int
        /// In `contactPrefix`; `contact` has it one byte later (after `<`).
        var contactPrefix: Int
        /// How many digits the port has.
        var digits: Int
        var viaLine: [Int] = []
        /// In `contactLine`, and in `contactSDPLines`, which starts with it.
        var contactLine: [Int] = []
        var inviteHead: [Int] = []
        var registerHead: [Int] = []

        init(via: Int, contactPrefix: Int, digits: Int) {
            self.via = via
            self.contactPrefix = contactPrefix
            self.digits = digits
        }

        /// The spots once the port has `count` digits: each moves by the change in length of the ports before it
        /// in its piece (none when the count is the same, as for most ephemeral ports).
        func moved(to count: Int) -> PortSpots {
            let delta = count - digits
            guard delta != 0 else { return self }
            func shift(_ spots: [Int]) -> [Int] { spots.enumerated().map { $0.element + $0.offset * delta } }
            var m = self
            m.digits = count
            m.viaLine = shift(viaLine)
            m.contactLine = shift(contactLine)
            m.inviteHead = shift(inviteHead)
            m.registerHead = shift(registerHead)
            return m
        }
    }

    /// One port's digits written over another's, `replaced` bytes long, in each piece.
    struct PortMove {
        let digits: [UInt8]
        let replaced: Int

        /// `old` with the digits at each of `spots` (in order) replaced: one allocation, each run copied once.
        func bytes(_ old: [UInt8], at spots: [Int]) -> [UInt8] {
            old.withUnsafeBufferPointer { b in
                let count = b.count + spots.count * (digits.count - replaced)
                return [UInt8](unsafeUninitializedCapacity: count) { out, written in
                    written = write(b, at: spots, into: out)
                }
            }
        }

        /// `old`'s bytes with the digits at each of `spots` replaced, written into `out` (room for them); how
        /// many bytes were written.
        private func write(_ old: UnsafeBufferPointer<UInt8>, at spots: [Int],
                           into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
            guard let source = old.baseAddress, let target = out.baseAddress else { return 0 }
            var from = 0, to = 0
            func copy(_ p: UnsafePointer<UInt8>, _ n: Int) {
                (target + to).update(from: p, count: n)
                to += n
            }
            digits.withUnsafeBufferPointer { d in
                for spot in spots {
                    copy(source + from, spot - from)
                    copy(d.baseAddress!, d.count)
                    from = spot + replaced
                }
            }
            copy(source + from, old.count - from)
            return to
        }

        /// `bytes`, the template's slots after each spot moved with it.
        func template(_ old: SIPHeaderTemplate, at spots: [Int]) -> SIPHeaderTemplate {
            let delta = digits.count - replaced
            let slots = delta == 0 ? old.slots : old.slots.map { slot in
                slot + delta * spots.reduce(0) { $0 + ($1 < slot ? 1 : 0) }
            }
            return SIPHeaderTemplate(bytes: bytes(old.bytes, at: spots), slots: slots)
        }

        /// The digits written over as many old ones at each of `spots` (`replaced` is `digits.count`).
        func overwrite(_ bytes: inout [UInt8], at spots: [Int]) {
            for spot in spots { overwrite(&bytes, at: spot) }
        }

        func overwrite(_ bytes: inout [UInt8], at spot: Int) {
            precondition(replaced == digits.count && spot >= 0 && spot + replaced <= bytes.count)
            bytes.withUnsafeMutableBufferPointer { b in
                digits.withUnsafeBufferPointer { d in
                    (b.baseAddress! + spot).update(from: d.baseAddress!, count: d.count)
                }
            }
        }

        func string(_ old: String, at spot: Int) -> String {
            var text = old
            return text.withUTF8 { b in
                String(unsafeUninitializedCapacity: b.count + digits.count - replaced) { out in
                    write(b, at: [spot], into: out)
                }
            }
        }
    }
}
