// The sample of the FluxCapacitorPersistence landing page
// (Sources/FluxCapacitorPersistence/FluxCapacitorPersistence.docc/FluxCapacitorPersistence.md),
// verbatim, imports included (a file of its own, so that they open it). Compiled, never
// read: nothing is written to the user's folders.

import FluxCapacitor
import FluxCapacitorPersistence

let appStorage = FileStorage.applicationSupport(named: "MyApp")
let savedFavorites = Variable<[String]>(
    [], persistedAs: "favorites", in: appStorage)
