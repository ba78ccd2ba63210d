// The **After** snippet of MIGRATION.md's "Persisted values take the
// `FluxCapacitorPersistence` product", verbatim, imports included (a file of its own, so
// that they open it). Compiled, never read: nothing is written to the user's folders.

import FluxCapacitor
import FluxCapacitorPersistence

let appStorage = FileStorage.applicationSupport(named: "MyApp")
let persistedFavorites = Variable<[String]>(
    [], persistedAs: "favorites", in: appStorage)

/// Compiled, never run: it sets the process's default storage to the user's real folder.
func setTheDefaultStorageAtLaunch() {
    Persistence.setDefaultStorage(appStorage)
}
