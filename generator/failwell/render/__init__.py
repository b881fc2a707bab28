"""Stage 2, the render: the typed model of a checked spec (`model`, through `pipeline`), the Copier template
rendered in memory (`render`, `expand`, `copier_extension`), and the project synced on disk (`sync`,
`manifest`, `handlers`, `rename`, `migrate`, `pin`, `locate`). Imports the spec stage, never the client."""
