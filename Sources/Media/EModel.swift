/// A call-quality estimate from the ITU-T G.107 E-model in the simplified form media probes use:
/// R = R0 − Is − Id − Ie,eff + A, then MOS from R. Only delay, loss and the codec's impairment vary; every other
/// input keeps its G.107 default, which is what makes R0 − Is (with the default terms) the constant below.
///
/// Sources of each constant:
/// - `defaultR` 93.2: G.107 notes that with every parameter at its default (its table of default values) the
///   model gives R = 93.2: R0 − Is less the default terms, with no delay and no loss. G.113 Appendix I and Cole &
///   Rosenbluth ("Voice over IP performance monitoring", ACM SIGCOMM CCR, 2001) start from the same figure.
/// - `Id` = 0.024·d + 0.11·(d − 177.3)·H(d − 177.3), d the one-way mouth-to-ear delay in ms, H the step
///   function: Cole & Rosenbluth's fit of G.107's delay terms at default parameters, the form probes use. d here is
///   the network's one-way delay plus the receiver's jitter buffer (and whatever fixed delay the caller adds, such
///   as packetisation).
/// - `Ie,eff` = Ie + (95 − Ie) · Ppl / (Ppl / BurstR + Bpl) (G.107's effective equipment impairment), Ppl the
///   loss in percent, BurstR 1 for random loss.
/// - G.711: Ie = 0; Bpl = 4.3 without packet-loss concealment, 25.1 with it (G.113 Appendix I, planning values).
/// - `A` = 0, the advantage factor of a wired call (G.107's default).
/// - MOS (G.107 Annex B): 1 for R < 0; 1 + 0.035·R + 7·10⁻⁶·R·(R − 60)·(100 − R) for 0 ≤ R ≤ 100; 4.5 above
///   100. R = 93.2 gives MOS 4.41.
public struct EModel: Sendable, Equatable {
    public static let defaultR = 93.2

    /// A codec's equipment impairment and loss robustness.
    public struct Codec: Sendable, Equatable {
        public var ie: Double
        public var bpl: Double

        public init(ie: Double, bpl: Double) {
            self.ie = ie
            self.bpl = bpl
        }

        /// G.711 with packet-loss concealment (what phones and softphones do): the default.
        public static let g711WithConcealment = Codec(ie: 0, bpl: 25.1)
        /// G.711 with no concealment (a lost packet plays as silence).
        public static let g711 = Codec(ie: 0, bpl: 4.3)
    }

    public var codec: Codec
    /// R0 − Is (and every default term) before delay and loss.
    public var baseR: Double
    /// The advantage factor.
    public var advantage: Double

    public init(codec: Codec = .g711WithConcealment, baseR: Double = EModel.defaultR, advantage: Double = 0) {
        self.codec = codec
        self.baseR = baseR
        self.advantage = advantage
    }

    /// The delay impairment for a one-way mouth-to-ear delay of `millis`.
    public static func delayImpairment(millis d: Double) -> Double {
        0.024 * d + (d > 177.3 ? 0.11 * (d - 177.3) : 0)
    }

    /// The effective equipment impairment at `lossPercent` (0...100) with burst ratio `burstRatio` (1: random).
    public func effectiveEquipmentImpairment(lossPercent ppl: Double, burstRatio: Double = 1) -> Double {
        let loss = max(0, min(100, ppl))
        return codec.ie + (95 - codec.ie) * loss / (loss / max(burstRatio, 1e-9) + codec.bpl)
    }

    /// The rating factor R for a call with this one-way delay and loss.
    public func rating(delayMillis: Double, lossPercent: Double, burstRatio: Double = 1) -> Double {
        baseR - Self.delayImpairment(millis: max(0, delayMillis))
            - effectiveEquipmentImpairment(lossPercent: lossPercent, burstRatio: burstRatio) + advantage
    }

    /// MOS (1...4.5) for a rating factor R (G.107 Annex B).
    public static func mos(rating r: Double) -> Double {
        if r < 0 { return 1 }
        if r > 100 { return 4.5 }
        return 1 + 0.035 * r + 7e-6 * r * (r - 60) * (100 - r)
    }

    /// MOS for a call with this delay and loss.
    public func mos(delayMillis: Double, lossPercent: Double, burstRatio: Double = 1) -> Double {
        Self.mos(rating: rating(delayMillis: delayMillis, lossPercent: lossPercent, burstRatio: burstRatio))
    }

    /// The jitter buffer a receiver is assumed to hold: twice the measured jitter (the usual adaptive-buffer
    /// rule of thumb probes apply). Fixed delays (packetisation, a playout minimum) are the caller's to add.
    public static func jitterBufferMillis(jitterMillis: Double) -> Double {
        2 * max(0, jitterMillis)
    }
}
