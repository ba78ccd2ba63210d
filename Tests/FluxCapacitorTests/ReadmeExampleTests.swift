import FluxCapacitor
import XCTest

// The code of FluxCapacitor 0.10's README, as written there (only the API session is a
// stub here). XCTest, because that is what the README's users wrote their tests in.

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

            // The test runs on the main thread, so `.main` observers run at once.
            XCTAssertEqual(store.repositories.value, [GithubRepository(name: "FluxCapacitor")])
            XCTAssertEqual(store.repositories.snapshot().count, 1)
            XCTAssertFalse(store.isRepositoryFetching.value)
            XCTAssertEqual(reloads.value, 1)
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

        let printed = Locked<[Int]>([])
        _ = variable.observe { value in printed.withLock { $0.append(value) } }
        _ = constant.observe { value in printed.withLock { $0.append(value) } }
        variable.value = 10
        XCTAssertEqual(printed.value, [10, 10])
    }
}
