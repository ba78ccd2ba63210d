public import CFluxCapacitorShims

extension Dispatcher {
    /// The dispatcher bound by the innermost ``withCurrent(_:operation:)`` or `withScope`.
    /// Private: everything else reads it through `scopeToCarry` and binds it through
    /// `withScope` (or the public `withCurrent`).
    @TaskLocal
    private static var scoped: Dispatcher?

    /// The dispatcher that ``Storable/instantiate()``, ``Storable/clear()`` and
    /// ``Actionable/invoke(_:)`` use here: the one bound by the innermost enclosing
    /// ``withCurrent(_:operation:)``, else ``shared``. It is also the dispatcher that a
    /// task started here by ``InFlightTasks`` dispatches to, and that a value made here
    /// with ``PrimitiveValue/init(combining:transform:)`` belongs to.
    public static var current: Dispatcher {
        // Until the first scope, `scopeToCarry` skips the task-local lookup: it is most of
        // the cost of `current`, and programs that never scope never pay for it. `shared`
        // through the C global (`unretainedShared`), not its lazy initializer.
        scopeToCarry ?? unretainedShared.takeUnretainedValue()
    }

    /// Runs `operation` with `dispatcher` as ``current``: the stores it instantiates, the
    /// states it invokes and the stores it clears live in `dispatcher`'s registry, not in
    /// ``shared`` nor in any other scope's.
    ///
    /// This is how tests that run in parallel keep their stores apart (the
    /// `FluxCapacitorTesting` trait `.isolatedDispatcher` does it for a whole test):
    ///
    /// ```swift
    /// Dispatcher.withCurrent(Dispatcher()) {
    ///     let store = RepositoryStore.instantiate()
    ///     action.invoke(.addRepositories([fluxCapacitor]))
    ///     #expect(store.repositories.value == [fluxCapacitor])
    /// }
    /// ```
    ///
    /// **What carries the scope.** Everything that runs synchronously inside `operation`;
    /// child tasks (`async let`, task groups) and `Task { }` started inside it, which
    /// inherit task-local values; and FluxCapacitor's own deliveries to ``ExecuteQueue/main``
    /// and ``ExecuteQueue/queue(_:)`` observers of changes made inside it.
    ///
    /// **What does not.** `DispatchQueue.async`, `Thread`, `Task.detached`, and callbacks
    /// that other libraries run on their own threads (a `URLSession` completion handler,
    /// say) run outside the scope and reach ``shared``. Carry the scope there yourself:
    ///
    /// ```swift
    /// let dispatcher = Dispatcher.current
    /// DispatchQueue.global().async {
    ///     Dispatcher.withCurrent(dispatcher) { action.invoke(.removeAllRepositories) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: The dispatcher to use inside `operation`.
    ///   - operation: The code to run.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws.
    public static func withCurrent<Result>(
        _ dispatcher: Dispatcher,
        operation: () throws -> Result
    ) rethrows -> Result {
        cflux_mark_scopes_used()
        return try withScope(dispatcher, operation)
    }

    /// Runs the asynchronous `operation` with `dispatcher` as ``current``; see
    /// ``withCurrent(_:operation:)``.
    ///
    /// ```swift
    /// await Dispatcher.withCurrent(Dispatcher()) {
    ///     await action.fetchRepositories(ofUser: "ra1028")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - dispatcher: The dispatcher to use inside `operation`.
    ///   - isolation: The caller's actor, inherited.
    ///   - operation: The code to run.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws.
    public static func withCurrent<Result>(
        _ dispatcher: Dispatcher,
        isolation: isolated (any Actor)? = #isolation,
        operation: () async throws -> Result
    ) async rethrows -> Result {
        cflux_mark_scopes_used()
        return try await $scoped.withValue(dispatcher, operation: operation, isolation: isolation)
    }

    /// The dispatcher bound by an enclosing scope, or `nil` when ``current`` is ``shared``.
    /// Inlined, and one relaxed load when no scope was ever entered. Also what to bind
    /// around a hop to another queue (nothing, when `nil`).
    @inlinable
    static var scopeToCarry: Dispatcher? {
        guard _slowPath(cflux_scopes_were_used()) else {
            return nil
        }
        return scopedDispatcher
    }

    /// Runs `body` with `scope` bound as the scope, as a value set in `scope` is delivered:
    /// a dispatcher to bind, or `nil` for none (``current`` is then ``shared``). Binds
    /// nothing when `scope` is bound already, which is the common case and costs one
    /// relaxed load while no scope was ever entered. The one place where FluxCapacitor
    /// binds a scope (``withCurrent(_:operation:)`` binds through it; its async form, which
    /// cannot, binds `scoped` itself), as `scopeToCarry` is the one place that reads it.
    static func withScope<Result>(_ scope: Dispatcher?, _ body: () throws -> Result) rethrows -> Result {
        if scope === scopeToCarry {
            return try body()
        }
        return try $scoped.withValue(scope, operation: body)
    }

    /// The task-local binding; see `scopeToCarry`.
    @usableFromInline
    static var scopedDispatcher: Dispatcher? {
        scoped
    }

    /// ``shared``, unretained: it lives as long as the process. Read from a C global (one
    /// acquire load, a plain load on x86-64 and arm64) instead of through `shared`'s lazy
    /// initializer, whose `swift_once` check every dispatch would pay (the row `dispatch` of
    /// `Benchmarks/instructions`).
    @inlinable
    static var unretainedShared: Unmanaged<Dispatcher> {
        guard let published = cflux_shared_dispatcher() else {
            return .passUnretained(publishShared())
        }
        return .fromOpaque(published)
    }

    /// Makes ``shared`` if needed, publishes it for `unretainedShared` and returns it.
    /// Threads that race here publish the same object.
    @usableFromInline
    static func publishShared() -> Dispatcher {
        cflux_publish_shared_dispatcher(Unmanaged.passUnretained(shared).toOpaque())
        return shared
    }

    /// Runs `body` with ``shared``, neither retained nor released: it lives as long as the
    /// process. (A retain and a release of it make the rows `dispatch` and `instantiate` of
    /// `Benchmarks/instructions` dearer by a sixth and by two fifths. `rethrows`, as
    /// `_withUnsafeGuaranteedRef` is: with a non-throwing `body`, converting it made `dispatch`
    /// a tenth dearer.)
    @inlinable
    static func withShared<Result>(_ body: (Dispatcher) throws -> Result) rethrows -> Result {
        try unretainedShared._withUnsafeGuaranteedRef(body)
    }

    /// Dispatches `state` in ``current``. Unlike `current.dispatch(state)`, it neither
    /// retains nor releases ``shared`` when no scope is bound.
    @inlinable
    static func dispatchInCurrent<State: DispatchState>(_ state: State) {
        if let scoped = scopeToCarry {
            scoped.dispatch(state)
        } else {
            withShared { $0.dispatch(state) }
        }
    }

    /// The live instance of `Store` in ``current``, or a new one; see `dispatchInCurrent`.
    @inlinable
    static func instantiateInCurrent<Store: Storable>(_ type: Store.Type) -> Store {
        if let scoped = scopeToCarry {
            return scoped.instantiate(type)
        }
        return withShared { $0.instantiate(type) }
    }
}
