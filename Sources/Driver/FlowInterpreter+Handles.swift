import Metrics

extension FlowInterpreter {
    /// The VoIP push `local` reported for `uuid` named a caller: checks it against the device of this call that
    /// started the conversation (`CallerHandleCheck`), once per awaited push (where `pushArrived` measures it).
    mutating func checkCallerHandle(device local: Int, conversation uuid: String, _ ctx: inout FlowContext) {
        guard let check = config.callerHandles,
              let name = known.conversations.first(where: { $0.value == uuid })?.key,
              let caller = known.starters[name], caller != local else { return }
        let pushed = ctx.devices[local].pushCaller[uuid]
        let registered = ctx.devices[caller].identity.handle
        count(.callerHandlesChecked)
        for defect in check.defects(pushed, registered: registered, previous: ctx.devices.callerHandleSeen[caller]) {
            count(.callerHandle(defect.rawValue))
        }
        if let pushed, !pushed.value.isEmpty, ctx.devices.callerHandleSeen[caller] == nil {
            ctx.devices.callerHandleSeen[caller] = pushed.value
        }
    }
}
