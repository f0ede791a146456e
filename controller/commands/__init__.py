"""One module per ``kaeshi`` subcommand; each defines ``register(subparsers)``."""
