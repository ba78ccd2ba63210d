import FluxCapacitorTesting
import FluxTestFixtures
import TestSupport
import Testing

@testable import FluxCapacitor

@Suite("Dust and DustBuster", .isolatedDispatcher)
struct DustTests {
    @Test func cleaningEndsTheObservationAndCleaningTwiceIsSafe() {
        let variable = Variable(0)
        let seen = Locked<[Int]>([])
        let dust = variable.observe(ignoreFirst: true) { value in seen.withLock { $0.append(value) } }
        variable.value = 1
        dust.clean()
        dust.clean()
        variable.value = 2
        #expect(seen.value == [1])
        #expect(dust.isCleaned)
        #expect(variable.core.observerCount == 0)
    }

    @Test func anObserverCleanedDuringARoundIsNotCalledLaterInThatRound() {
        let variable = Variable(0)
        let calls = Locked<[String]>([])
        let victim = Locked<Dust?>(nil)
        let cleaner = variable.observe(ignoreFirst: true) { _ in
            calls.withLock { $0.append("cleaner") }
            victim.value?.clean()
        }
        victim.withLock {
            $0 = variable.observe(ignoreFirst: true) { _ in calls.withLock { $0.append("victim") } }
        }
        let bystander = variable.observe(ignoreFirst: true) { _ in calls.withLock { $0.append("bystander") } }

        variable.value = 1
        variable.value = 2
        #expect(calls.value == ["cleaner", "bystander", "cleaner", "bystander"])
        cleaner.clean()
        bystander.clean()
    }

    @Test func anObserverMayCleanItselfWhileItRuns() {
        let variable = Variable(0)
        let calls = Locked(0)
        let own = Locked<Dust?>(nil)
        own.withLock {
            $0 = variable.observe(ignoreFirst: true) { _ in
                calls.withLock { $0 += 1 }
                own.value?.clean()
            }
        }
        variable.value = 1
        variable.value = 2
        #expect(calls.value == 1)
        #expect(variable.core.observerCount == 0)
    }

    @Test func aBusterCleansItsDustOnCleanAndCanBeUsedAgain() {
        let variable = Variable(0)
        let calls = Locked(0)
        let buster = DustBuster()
        variable.observe(ignoreFirst: true) { _ in calls.withLock { $0 += 1 } }.cleaned(by: buster)
        variable.observe(ignoreFirst: true) { _ in calls.withLock { $0 += 1 } }.cleaned(by: buster)
        variable.value = 1
        #expect(calls.value == 2)
        buster.clean()
        #expect(buster.count == 0)
        variable.value = 2
        #expect(calls.value == 2)

        variable.observe(ignoreFirst: true) { _ in calls.withLock { $0 += 1 } }.cleaned(by: buster)
        variable.value = 3
        #expect(calls.value == 3)
    }

    @Test func aBusterCleansItsDustWhenItGoesAway() {
        let variable = Variable(0)
        let calls = Locked(0)
        do {
            let buster = DustBuster()
            variable.observe(ignoreFirst: true) { _ in calls.withLock { $0 += 1 } }.cleaned(by: buster)
            variable.value = 1
        }
        variable.value = 2
        #expect(calls.value == 1)
        #expect(variable.core.observerCount == 0)
    }

    @Test func aBusterLetsGoOfDustAsSoonAsItIsCleaned() {
        let variable = Variable(0)
        let buster = DustBuster()
        let deinits = Locked(0)
        weak var weakDust: Dust?
        do {
            let tracked = Tracked(deinits)
            let dust = variable.observe { _ in _ = tracked }
            dust.cleaned(by: buster)
            weakDust = dust
            #expect(buster.count == 1)
            dust.clean()
        }
        #expect(buster.count == 0)
        #expect(weakDust == nil, "the buster must not keep cleaned dust alive")
        #expect(deinits.value == 1, "what the observer captured is released")
    }

    @Test func cleanedDustIsNotAddedToABuster() {
        let buster = DustBuster()
        let dust = Variable(0).observe { _ in }
        dust.clean()
        dust.cleaned(by: buster)
        #expect(buster.count == 0)
    }

    @Test func dustInTwoBustersIsCleanedByTheFirstAndLeavesBoth() {
        let first = DustBuster()
        let second = DustBuster()
        let cleanups = Locked(0)
        let dust = Dust { cleanups.withLock { $0 += 1 } }
        dust.cleaned(by: first)
        dust.cleaned(by: second)
        first.clean()
        #expect(cleanups.value == 1)
        #expect(second.count == 0)
        second.clean()
        #expect(cleanups.value == 1)
    }

    @Test func aClosureDustRunsItsCleanupOnce() {
        let cleanups = Locked(0)
        let dust = Dust { cleanups.withLock { $0 += 1 } }
        #expect(!dust.isCleaned)
        dust.clean()
        dust.clean()
        #expect(cleanups.value == 1)
        #expect(dust.isCleaned)
    }

    @Test func cleaningConcurrentlyFromManyThreadsRunsTheCleanupOnce() {
        for _ in 0..<50 {
            let cleanups = Locked(0)
            let dust = Dust { cleanups.withLock { $0 += 1 } }
            let buster = DustBuster()
            dust.cleaned(by: buster)
            onThreads(4) { thread in
                if thread == 0 { buster.clean() } else { dust.clean() }
            }
            #expect(cleanups.value == 1)
            #expect(buster.count == 0)
        }
    }
}
