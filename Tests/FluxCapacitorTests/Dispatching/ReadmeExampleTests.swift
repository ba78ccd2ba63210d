import FluxCapacitor
import FluxTestFixtures
import TestSupport
import XCTest

// The code of the FluxCapacitor README of 0.10 and 0.11 (the last release), as written
// there (only the API session is a stub here). XCTest, because that is what the README's
// users wrote their tests in.

struct GithubRepository: Equatable {
    let name: String
}

final class ApiSession: @unchecked Sendable {
    // Sendable: immutable after init.
    static let shared = ApiSession(pages: [[GithubRepository(name: "FluxCapacitor")]])
    let pages: [[GithubRepository]]
    init(pages: [[GithubRepository]]) { self.pages = pages }

    enum Failure: Error { case noMorePages }

    /// Calls back at once; returns the "task", which the README ignores with `_ =`.
    func send(
        _ request: UserNodeRequest,
        completion: (Result<(nodes: [GithubRepository], Void), Failure>) -> Void
    ) -> UserNodeRequest {
        let page = Int(request.after ?? "0")!
        if page < pages.count {
            completion(.success((nodes: pages[page], ())))
        } else {
            completion(.failure(.noMorePages))
        }
        return request
    }
}

struct UserNodeRequest {
    let id: String
    let after: String?
}

extension Dispatcher {
    enum Repository: DispatchState {
        typealias RelatedStoreType = RepositoryStore
        typealias RelatedActionType = RepositoryAction

        case isRepositoryFetching(Bool)
        case addRepositories([GithubRepository])
        case removeAllRepositories
    }
}

final class RepositoryStore: Storable {
    typealias DispatchStateType = Dispatcher.Repository

    let isRepositoryFetching: Constant<Bool>
    private let _isRepositoryFetching = Variable<Bool>(false)

    let repositories: Constant<[GithubRepository]>
    private let _repositories = Variable<[GithubRepository]>([])

    required init() {
        self.isRepositoryFetching = Constant(_isRepositoryFetching)
        self.repositories = Constant(_repositories)
    }

    func reduce(with state: Dispatcher.Repository) {
        switch state {
        case .isRepositoryFetching(let value):
            _isRepositoryFetching.value = value
        case .addRepositories(let value):
            _repositories.value.append(contentsOf: value)
        case .removeAllRepositories:
            _repositories.value.removeAll()
        }
    }
}

final class RepositoryAction: Actionable {
    typealias DispatchStateType = Dispatcher.Repository

    private let session: ApiSession

    init(session: ApiSession = .shared) {
        self.session = session
    }

    func fetchRepositories(withUserId id: String, after: String?) {
        invoke(.isRepositoryFetching(true))
        let request = UserNodeRequest(id: id, after: after)
        _ = session.send(request) { [weak self] in
            switch $0 {
            case .success(let value):
                self?.invoke(.addRepositories(value.nodes))
            case .failure:
                break
            }
            self?.invoke(.isRepositoryFetching(false))
        }
    }
}

// "Or implement `func asObservable()` like this": an extension on Constant.
extension PrimitiveValue where Trait == ImmutableTrait {
    func snapshot() -> Element {
        value
    }

    // The README's RxSwift bridge, with a stand-in for RxSwift (which this package does not
    // depend on): `Observable.create { … self?.observe { observer.onNext($0) } … }`. It
    // relies on `observe` delivering the current value first.
    func asObservable() -> MiniObservable<Element> {
        return MiniObservable.create { [weak self] observer in
            let dust = self?.observe { observer.onNext($0) }
            return MiniDisposable { dust?.clean() }
        }
    }
}

/// Just enough of RxSwift's `Observable.create` to replay the README's bridge.
struct MiniObservable<Element: Sendable> {
    let subscribeHandler: (MiniObserver<Element>) -> MiniDisposable

    static func create(_ subscribe: @escaping (MiniObserver<Element>) -> MiniDisposable) -> Self {
        Self(subscribeHandler: subscribe)
    }

    func subscribe(onNext: @escaping @Sendable (Element) -> Void) -> MiniDisposable {
        subscribeHandler(MiniObserver(onNext: onNext))
    }
}

struct MiniObserver<Element: Sendable>: Sendable {
    let onNext: @Sendable (Element) -> Void
}

struct MiniDisposable {
    let dispose: () -> Void
}

final class ReadmeExampleTests: XCTestCase {
    let dustBuster = DustBuster()
    let repositoryAction = RepositoryAction()

    func testTheRepositoryFlowOfTheReadme() {
        Dispatcher.withCurrent(Dispatcher()) {
            let reloads = Locked(0)

            // Observe changes
            let store = RepositoryStore.instantiate()
            store.repositories
                .observe(on: .main) { _ in
                    reloads.withLock { $0 += 1 }
                }
                .cleaned(by: dustBuster)

            repositoryAction.fetchRepositories(withUserId: "marty-suzuki", after: nil)

            // The test runs on the main thread, so `.main` observers run at once: one reload
            // for the current (empty) repositories when observing starts, one for the fetch.
            XCTAssertEqual(store.repositories.value, [GithubRepository(name: "FluxCapacitor")])
            XCTAssertEqual(store.repositories.snapshot().count, 1)
            XCTAssertFalse(store.isRepositoryFetching.value)
            XCTAssertEqual(reloads.value, 2)
            XCTAssertTrue(RepositoryStore.instantiate() === store)

            store.clear()
            XCTAssertFalse(RepositoryStore.instantiate() === store)
        }
    }

    func testConstantAndVariableAsTheReadmeShowsThem() {
        let intVal = Variable<Int>(0)
        intVal.value = 1
        XCTAssertEqual(intVal.value, 1)

        let variable = Variable<Int>(0)
        let constant = Constant(variable)
        variable.value = 1
        XCTAssertEqual(variable.value, 1)
        XCTAssertEqual(constant.value, 1)

        // The README's example, on a fresh pair:
        //     _ = variable.observe { value in print(value) } // 0 -> 10
        //     _ = constant.observe { value in print(value) } // 0 -> 10
        let readmeVariable = Variable<Int>(0)
        let readmeConstant = Constant(readmeVariable)
        let fromVariable = Locked<[Int]>([])
        let fromConstant = Locked<[Int]>([])
        _ = readmeVariable.observe { value in fromVariable.withLock { $0.append(value) } }
        _ = readmeConstant.observe { value in fromConstant.withLock { $0.append(value) } }
        readmeVariable.value = 10
        XCTAssertEqual(fromVariable.value, [0, 10])
        XCTAssertEqual(fromConstant.value, [0, 10])
    }

    func testTheRxSwiftBridgeOfTheReadmeGetsTheCurrentValueFirst() {
        let variable = Variable<[String]>(["FluxCapacitor"])
        let constant = Constant(variable)
        let elements = Locked<[[String]]>([])
        let disposable = constant.asObservable().subscribe { value in elements.withLock { $0.append(value) } }
        XCTAssertEqual(elements.value, [["FluxCapacitor"]])
        variable.value.append("ReSwift")
        XCTAssertEqual(elements.value, [["FluxCapacitor"], ["FluxCapacitor", "ReSwift"]])
        disposable.dispose()
        variable.value = []
        XCTAssertEqual(elements.value.count, 2, "nothing after dispose")
    }
}
