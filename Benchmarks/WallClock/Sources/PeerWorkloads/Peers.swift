import Workloads

extension Workload {
    /// Makes a ready-to-run contender of this workload, the peer (OpenCombine) included.
    public func makeAnyRunner(_ contender: Contender) -> any Runner {
        guard contender == .openCombine else {
            return makeRunner(contender)
        }
        switch id {
        case "dispatch", "set", "dispatchOfReadValue", "setOfReadValue": return CombineSend()
        case "notify3000": return CombineNotify(observers: 3_000)
        case "send": return CombinePassthroughSend(observers: 1)
        case "send3000": return CombinePassthroughSend(observers: 3_000)
        case "observeClean3000": return CombineObserveClean(observers: 3_000)
        case "observeClean30000": return CombineObserveClean(observers: 30_000)
        case "dispatch2Threads": return CombineContendedSend()
        default: preconditionFailure("PeerWorkloads: no OpenCombine contender for workload \(id)")
        }
    }
}
