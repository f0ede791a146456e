"""The phone holder's task, as one state machine: from opening the camera page to a
board the table watches, and back whenever the view is lost.

One text per state, the same on the camera page, on the arbiter's view and in the log.
Pure: the browser source feeds it what happened (a page connected, its clock synced, a
frame read and what it showed, the page hidden, a silence), never a clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class CameraStep(StrEnum):
    NOT_CONNECTED = "not_connected"
    SYNCING = "syncing"
    NO_PICTURE = "no_picture"
    HIDDEN = "hidden"
    VIEW_GONE = "view_gone"
    BOARD_NOT_FOUND = "board_not_found"
    FIX_PICTURE = "fix_picture"
    WATCHING = "watching"


TEXT: dict[CameraStep, str] = {
    CameraStep.NOT_CONNECTED: "Open the camera page on the phone over the board.",
    CameraStep.SYNCING: "Setting the phone's clock against the table's…",
    CameraStep.NO_PICTURE: "No picture yet: allow the camera on the phone.",
    CameraStep.HIDDEN: "The camera page is hidden: bring it to the front, keep the screen on.",
    CameraStep.VIEW_GONE: "No picture for a while: the arbiter holds judgement until it is back.",
    CameraStep.BOARD_NOT_FOUND: "The board is not in view: show the whole board.",
    CameraStep.FIX_PICTURE: "The picture needs fixing (see below); the table still reads it.",
    CameraStep.WATCHING: "Watching the board.",
}


@dataclass
class CameraFlow:
    """What is known of the camera page, and the step it gives."""

    connected: bool = False
    synced: bool = False
    pictures: bool = False  # a frame has been read since the page connected
    visible: bool = True
    quiet: bool = False  # frames stopped coming
    board: bool = False
    fixes: bool = False

    @property
    def step(self) -> CameraStep:
        if not self.connected:
            return CameraStep.NOT_CONNECTED
        if not self.synced:
            return CameraStep.SYNCING
        if not self.visible:
            return CameraStep.HIDDEN
        if not self.pictures:
            return CameraStep.NO_PICTURE
        if self.quiet:
            return CameraStep.VIEW_GONE
        if not self.board:
            return CameraStep.BOARD_NOT_FOUND
        return CameraStep.FIX_PICTURE if self.fixes else CameraStep.WATCHING

    @property
    def text(self) -> str:
        return TEXT[self.step]

    # ------------------------------------------------------------- events
    def connect(self) -> None:
        self.connected, self.synced, self.pictures, self.quiet = True, False, False, False
        self.visible = True

    def disconnect(self) -> None:
        self.connected = self.synced = self.pictures = False

    def synchronised(self) -> None:
        if self.connected:
            self.synced = True

    def frame(self, board: bool, fixes: bool) -> None:
        if self.connected:
            self.pictures, self.quiet, self.board, self.fixes = True, False, board, fixes

    def silent(self) -> None:
        if self.pictures:
            self.quiet = True

    def shown(self, visible: bool) -> None:
        if self.connected:
            self.visible = visible
