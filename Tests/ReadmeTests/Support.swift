// What the README's samples assume beyond what they show (its `GitHub` model and
// `GitHubSession` are a README block, in ReadmeSnippets.swift).
