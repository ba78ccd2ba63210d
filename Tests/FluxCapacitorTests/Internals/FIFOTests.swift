import FluxTestFixtures
import Testing

@testable import FluxCapacitor

@Suite("FIFO, the one queue for queued work")
struct FIFOTests {
    /// An element that counts its deinits, to see when the queue lets go of it.
    final class Tracked {
        let number: Int
        let released: Released
        init(_ number: Int, released: Released) {
            self.number = number
            self.released = released
        }
        deinit { released.numbers.append(number) }
    }

    final class Released {
        var numbers: [Int] = []
    }

    @Test("elements come out in the order they went in")
    func keepsOrder() {
        var queue = FIFO<Int>()
        for number in 0..<100 {
            queue.append(number)
        }
        #expect(queue.count == 100)
        var popped: [Int] = []
        while let number = queue.popFirst() {
            popped.append(number)
        }
        #expect(popped == Array(0..<100))
        #expect(queue.isEmpty)
        #expect(queue.popFirst() == nil)
    }

    @Test("an empty queue has allocated nothing")
    func emptyQueueHasNoStorage() {
        let queue = FIFO<Int>()
        #expect(queue.capacity == 0)
        #expect(queue.isEmpty)
        #expect(queue.count == 0)
    }

    @Test("a drained queue reuses its storage: refilling to the same size does not grow it")
    func reusesStorageAfterDraining() {
        var queue = FIFO<Int>()
        for number in 0..<10 {
            queue.append(number)
        }
        let capacity = queue.capacity
        #expect(capacity >= 10)
        for round in 1...5 {
            while queue.popFirst() != nil {}
            for number in 0..<10 {
                queue.append(round * 100 + number)
            }
            #expect(queue.capacity == capacity, "round \(round)")
            #expect(queue.popFirst() == round * 100)
        }
    }

    @Test("interleaved appends and pops wrap around the ring and across growth in order")
    func interleavedAppendAndPop() {
        var queue = FIFO<Int>()
        var model: [Int] = []
        var next = 0
        var popped: [Int] = []
        var expected: [Int] = []
        // Appends outnumber pops in some phases and pops outnumber appends in others, so the
        // head wraps around while the ring holds elements and the ring grows mid-wrap.
        for phase in 0..<40 {
            let appends = phase % 3 == 2 ? 1 : 3 + phase % 5
            let pops = phase % 3 == 2 ? 6 : 2
            for _ in 0..<appends {
                queue.append(next)
                model.append(next)
                next += 1
            }
            for _ in 0..<pops {
                popped.append(queue.popFirst() ?? -1)
                expected.append(model.isEmpty ? -1 : model.removeFirst())
            }
            #expect(queue.count == model.count, "phase \(phase)")
        }
        #expect(popped == expected)
        let rest = queue.removeAll()
        #expect(rest == model)
    }

    @Test("removeAll hands out the waiting elements in order and leaves a reusable queue")
    func removeAllTakesTheRest() {
        var queue = FIFO<Int>()
        for number in 0..<7 {
            queue.append(number)
        }
        _ = queue.popFirst()
        _ = queue.popFirst()
        let capacity = queue.capacity
        #expect(queue.removeAll() == [2, 3, 4, 5, 6])
        #expect(queue.isEmpty)
        #expect(queue.popFirst() == nil)
        #expect(queue.removeAll() == [])
        #expect(queue.capacity == capacity, "the storage is kept for reuse")
        queue.append(42)
        #expect(queue.popFirst() == 42)
    }

    @Test("the queue lets go of an element when it is popped, and of the rest only when the caller does")
    func releasesElementsWhenTaken() {
        let released = Released()
        var queue = FIFO<Tracked>()
        for number in 0..<3 {
            queue.append(Tracked(number, released: released))
        }
        _ = queue.popFirst()
        #expect(released.numbers == [0])
        var rest = queue.removeAll()
        #expect(released.numbers == [0], "removeAll hands the elements over without releasing them")
        #expect(rest.map(\.number) == [1, 2])
        rest = []
        #expect(released.numbers == [0, 1, 2])
    }
}
