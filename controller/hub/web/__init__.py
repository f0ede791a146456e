"""The hub's web pages: the arbiter's dashboard and the spectators' delayed broadcast."""

from controller.hub.web.app import HubWebSettings, build_app

__all__ = ["HubWebSettings", "build_app"]
