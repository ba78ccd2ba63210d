extension Dispatcher {
    /// Prints one line per dispatch of this dispatcher, until the returned ``Dust`` is
    /// cleaned: the state, and the store that reduces it or the fact that none was alive.
    /// A line is printed just before the store reduces the state, so it comes before what
    /// the store's observers print.
    ///
    /// ```swift
    /// let logging = Dispatcher.shared.printDispatches()
    /// // FluxCapacitor: Dispatcher.Repository.removeAllRepositories → RepositoryStore
    /// // FluxCapacitor: Dispatcher.User.removeAllUsers dropped: no live UserStore
    /// ```
    ///
    /// - Parameters:
    ///   - limit: The most characters of a state's description to print; longer ones end
    ///     with "…". 200 by default.
    ///   - output: Where each line goes; `print` by default.
    /// - Returns: A ``Dust`` that stops the printing.
    @preconcurrency
    public func printDispatches(
        limit: Int = 200,
        to output: @escaping @Sendable (String) -> Void = { print($0) }
    ) -> Dust {
        observeDispatches { event in
            switch event.phase {
            case .didReduce:
                return
            case .willReduce:
                output("FluxCapacitor: \(event.stateDescription(limit: limit)) → \(event.storeType)")
            case .droppedWithoutStore:
                output("FluxCapacitor: \(event.stateDescription(limit: limit)) dropped: no live \(event.storeType)")
            }
        }
    }
}

extension DispatchEvent {
    /// The state, qualified by its type (without the module), at most `limit` characters:
    /// `Dispatcher.Repository.isRepositoryFetching(true)`.
    ///
    /// - Parameter limit: The most characters to return; a longer description ends with "…".
    /// - Returns: The description.
    public func stateDescription(limit: Int = 200) -> String {
        var typeName = String(reflecting: type(of: state))
        if let firstDot = typeName.firstIndex(of: ".") {
            typeName = String(typeName[typeName.index(after: firstDot)...])
        }
        let description = "\(typeName).\(state)"
        guard description.count > limit else {
            return description
        }
        return description.prefix(max(limit - 1, 0)) + "…"
    }
}
