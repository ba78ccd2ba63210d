import Foundation

// The example app of FluxCapacitor; see `RepositorySearch` and `--help`.
exit(await RepositorySearch.main(arguments: Array(CommandLine.arguments.dropFirst())))
