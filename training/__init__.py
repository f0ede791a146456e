"""Offline training of the camera's square model: run from a checkout, never installed."""
