"""Subcommands of ``kaeshi calibrate``: each module has ``register(sub)``."""
