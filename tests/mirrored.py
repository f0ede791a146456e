"""Which test files are found from which module: the map ``test_layering.py`` checks.

A module's tests are found from its name: ``controller/hall/driver.py`` is tested in
``tests/hall/test_hall_driver.py`` (or ``test_hall_driver_<behaviour>.py``, one file
per behaviour), a top-level module such as ``controller/position.py`` in
``test_position.py`` in the folder of its subject. A module with no such file is
named in ``TESTED_THROUGH`` with the files that exercise it, so that its absence is a
decision someone wrote down, not an oversight.
"""

from __future__ import annotations

from pathlib import Path

#: Package -> its test folder under ``tests/``. Every module of the package (its
#: ``__init__`` apart: it re-exports what its modules define) has a test file there
#: named ``test_<package>_<module>[_<behaviour>].py``, the package's dotted name with
#: ``controller.`` dropped and dots as underscores; every test file in the folder is
#: named after a module of a package it holds, or is in ``PACKAGE_WIDE``.
#: A sub-package's folder sits inside its parent's (``vision/finding``), so each
#: folder's files stay those of one package.
MIRRORED_PACKAGES: dict[str, str] = {
    "controller.records": "records",
    "controller.engine": "engine",
    "controller.hall": "hall",
    # the clock's hardware beside the clock model's own tests (controller/clock.py)
    "controller.clockhw": "clock",
    "controller.leds": "leds",
    "controller.simulator": "simulator",
    "controller.synth": "synth",
    "controller.commands": "commands",
    "controller.arbiter": "arbiter",
    "controller.browser": "browser",
    "controller.service": "service",
    "controller.web": "web",
    "controller.hall_protocol": "hall_protocol",
    "controller.table_link": "table_link",
    "controller.measure": "measure",
    "controller.tournament_store": "tournament_store",
    "controller.hub": "hub",
    "controller.hub.web": "hub",
    "controller.tournament": "tournament",
    "controller.vision": "vision",
    "controller.vision.calibrating": "vision/calibrating",
    "controller.vision.finding": "vision/finding",
    "controller.vision.reading": "vision/reading",
    "controller.vision.watching": "vision/watching",
    "calibration": "calibration",
    "calibration.commands": "calibration",
    "calibration.hall": "calibration",
}

#: The packages whose tests are not laid out by this rule yet; each moves to
#: ``MIRRORED_PACKAGES`` when its folder is. Together the two name every package, so a
#: new package has to be placed in one of them.
NOT_YET_MIRRORED: tuple[str, ...] = (
)

#: Top-level module of ``controller/`` -> the folder of its ``test_<module>[_*].py``
#: ("" for ``tests/`` itself). Every top-level module is here or in ``TESTED_THROUGH``.
TOP_LEVEL_HOMES: dict[str, str] = {
    "bitboard": "rules",
    "boardsize": "rules",
    "cli": "",
    "clock": "clock",
    "irregularities": "records",
    "irregular_flow": "arbiter",
    "perft": "rules",
    "position": "rules",
    "scorecard": "tournament",
    "squares": "rules",
    "symmetry": "rules",
}

#: Folders that hold only top-level modules' tests, named as above.
TOP_LEVEL_FOLDERS: tuple[str, ...] = ("rules",)

#: Test files of a mirrored folder about a package as a whole, not one of its modules.
PACKAGE_WIDE: dict[str, str] = {
    "commands/test_commands_help_pointers.py": "every command's help text leads somewhere",
    "service/test_service_parts.py": "its parts own their data and meet through protocols",
    "service/test_service_inputs.py": "hostile input at every edge the service reads",
    "web/test_web_support.py": "what the page tests rely on in web_support is true",
    "hub/test_hub_pages.py": "every hub page in Chromium at desktop and phone sizes",
    "hub/test_hub_strict_readers.py": "every reader of the hall refuses hostile values",
    "hub/test_hub_transport.py": "the hall link end to end over a real Mosquitto",
    # the table's side of the hub's orders, beside the hub that sends them
    "hub/test_hub_link_orders.py": "an order held while a flag is decided",
    "hub/test_hub_table_journal.py": "a next game held while the journal is unwritable",
    "hub/test_hub_table_toss.py": "the hub's 伏せ石 order at the table",
}

#: Module -> the test files that exercise it, for a module with no test file of its
#: own: a definition, a driver edge or a step that only means something through the
#: module that uses it. Paths are under ``tests/``.
TESTED_THROUGH: dict[str, tuple[str, ...]] = {
    # records: the model every reader fills, and the checks behind ``kaeshi record verify``
    "controller.records.model": ("records/test_records_jsonform.py", "records/test_records_ggf.py"),
    "controller.records.verify": ("commands/test_commands_record.py",
                                  "records/test_records_irregular.py"),
    # engine: the child process, over real pipes, and the review's report
    "controller.engine.process": ("engine/test_engine_client.py",),
    "controller.engine.report": ("engine/test_engine_review.py",),
    # tournament_store: writing an event's sheets, met through `kaeshi tournament export`
    "controller.tournament_store.sheets": ("tournament_store/test_tournament_store_store_cli.py",
                                           "tournament_store/test_tournament_store_formats_wof_date.py"),
    # the protocol sessions behind the client, over real pipes
    "controller.engine.sessions": ("engine/test_engine_client.py",),
    # hall: the driver's parts, met through the driver on a pseudo-terminal
    "controller.hall.errors": ("hall/test_hall_driver.py", "hall/test_hall_driver_simboard.py"),
    "controller.hall.link": ("hall/test_hall_driver.py", "hall/test_hall_host.py",
                             "hall/test_hall_reconnect.py"),
    "controller.hall.port": ("hall/test_hall_driver.py",),
    "controller.hall.reports": ("hall/test_hall_reconnect.py",),
    # the protocol module generated from the firmware's table, and the firmware simulator
    "controller.hall.messages": ("firmware/test_firmware_protocol.py", "hall/test_hall_frames.py"),
    "controller.hall.simboard": ("firmware/test_firmware_sim.py",
                                 "hall/test_hall_driver_simboard.py"),
    # clock hardware: the one GPIO error, met where no pin library loads and where a line is taken
    "controller.clockhw.errors": ("clock/test_clockhw_pinlib.py", "clock/test_clockhw_gpio.py"),
    # simulator: the presses' timing and the hand over the board
    "controller.simulator.prompt": ("simulator/test_simulator_game.py",),
    "controller.simulator.table": ("simulator/test_simulator_game.py",),
    # synth: the renderer's parts, each checked through the pictures' ground truth
    "controller.synth.__main__": ("synth/test_synth_picture_video.py",),
    "controller.synth.board": ("synth/test_synth_picture.py",),
    "controller.synth.clutter": ("synth/test_synth_picture.py",),
    "controller.synth.discs": ("synth/test_synth_picture.py",),
    "controller.synth.gamevideo": ("synth/test_synth_replay_sizes.py",),
    "controller.synth.light": ("synth/test_synth_picture.py",),
    "controller.synth.resting": ("synth/test_synth_hand.py",),
    "controller.synth.scene": ("synth/test_synth_picture.py", "synth/test_synth_hand.py"),
    "controller.synth.textures": ("synth/test_synth_picture.py",),
    # commands: each run as a user runs it, through ``controller.cli.main``
    "controller.commands.arbitrate": ("hall/test_hall_replay.py",
                                      "arbiter/test_arbiter_core_cli.py"),
    "controller.commands.calibrate": ("calibration/test_calibration_commands_hall.py",),
    "controller.commands.demo": ("service/test_service_demo.py",),
    "controller.commands.engine": ("engine/test_engine_client.py",),
    "controller.commands.games": ("engine/test_engine_review.py",),
    "controller.commands.hub": ("hub/test_hub_simulate_faults.py",),
    "controller.commands.perft": ("rules/test_perft.py",),
    "controller.commands.recognize": ("vision/test_vision_pipeline_photo.py",),
    "controller.commands.run": ("install/test_install_trial.py",),
    "controller.commands.simulate": ("hall/test_hall_replay.py",
                                     "arbiter/test_arbiter_core_cli.py"),
    "controller.commands.tournament": ("tournament_store/test_tournament_store_store_cli.py",),
    "controller.commands.watch": ("synth/test_synth_replay_sizes.py",),
    # calibration: the camera's, through the advice it gives and the reader's tests
    "calibration.camera": ("calibration/test_calibration_advice.py",),
    "calibration.commands.camera": ("calibration/test_calibration_advice.py",),
    # top-level definitions, met wherever their words are read or written
    "controller.errors": ("leds/test_leds_drivers.py",),
    "controller.events": ("records/test_irregularities.py", "simulator/test_simulator_move.py"),
    # browser: the camera view, met through a live table fed a phone's frames
    "controller.browser.view": ("phone/test_phone_stream.py", "phone/test_phone_faults.py",
                                "phone/test_phone_routes_pages.py"),
    "controller.round_flow": ("hub/test_hub_round_status_flow.py",
                              "hub/test_hub_round_status_refused.py"),
    "controller.observation": ("hall/test_hall_replay.py",),
    "controller.strictjson": ("hub/test_hub_strict_readers.py",),
    "controller.terminal": ("hub/test_hub_admission.py",),
    "controller.tomlconfig": ("commands/test_commands_config.py",),
    # service: parts that only mean something inside the running service
    "controller.service.choice": ("arbiter/test_arbiter_presswait.py",
                                  "service/test_service_recovery_faults.py"),
    "controller.service.facade": ("service/test_service_app.py",
                                  "web/test_web_disclosure_leak.py"),
    "controller.service.gametime": ("service/test_service_app.py",
                                    "service/test_service_bootclock_outage.py"),
    "controller.service.outputs": ("service/test_service_sources_hall.py",
                                   "service/test_service_timing_flag_race.py"),
    "controller.service.replay_logs": ("service/test_service_nextgame_log_folder.py",),
    "controller.service.table": ("service/test_service_parts.py", "service/test_service_app.py"),
    # web: routes and edges, met through the pages and servers that use them
    "controller.web.action_routes": ("web/test_web_server.py", "web/test_web_server_pages.py"),
    "controller.web.engine_routes": ("engine/test_engine_seat_page.py",),
    "controller.web.facade": ("web/test_web_support.py", "service/test_service_app.py"),
    "controller.web.live_stream": ("web/test_web_embed_wire.py",),
    "controller.web.phone_routes": ("phone/test_phone_refusals.py",
                                    "phone/test_phone_routes_admission.py"),
    "controller.web.qr": ("phone/test_phone_routes_https.py",),
    "controller.web.tls": ("phone/test_phone_routes_https.py",),
    # hall protocol: the score card's records, met in the table state that carries them
    "controller.hall_protocol.cardwire": ("service/test_service_core_signoff.py",
                                          "service/test_service_late.py"),
    # the payloads' strict readers and encoders: their tests are still in tests/hub/
    "controller.hall_protocol.checks": ("hub/test_hub_strict_readers.py",
                                        "hub/test_hub_ingest_hostile_values.py"),
    "controller.hall_protocol.protocol": ("hub/test_hub_strict_readers.py",
                                          "hub/test_hub_ingest_hostile_values.py"),
    # table link: the link and the publisher need a broker and a hub, met in tests/hub/
    "controller.table_link.link": ("service/test_service_core_signoff.py",
                                   "hub/test_hub_link_orders.py"),
    "controller.table_link.publisher": ("hub/test_hub_transport.py",),
    "controller.table_link.table": ("service/test_service_parts.py",),
    # hub: the store's parts, met through the store on old and new files
    "controller.hub.store_games": ("hub/test_hub_transport.py", "hub/test_hub_strict_readers.py"),
    "controller.hub.store_schema": ("hub/test_hub_broadcast_official_board.py",
                                    "hub/test_hub_store_unreadable.py"),
    # hub: a game as the broadcast follows it, and the warnings one table cannot flood
    "controller.hub.broadcast_game": ("hub/test_hub_broadcast_steps.py",
                                      "hub/test_hub_broadcast_official_board.py"),
    "controller.hub.logs": ("hub/test_hub_admission.py",),
    # hub: the running hub, its broker and its change feed, met over a real Mosquitto
    "controller.hub.broker": ("hub/test_hub_transport.py", "hub/test_hub_web_dashboard_browser.py"),
    "controller.hub.changes": ("hub/test_hub_web_dashboard_browser.py",
                               "hub/test_hub_transport.py"),
    "controller.hub.serve": ("hub/test_hub_transport.py",),
    # hub: the simulated hall's parts, met through ``kaeshi hub simulate``
    "controller.hub.proxy": ("hub/test_hub_simulate_faults.py",),
    "controller.hub.sim_incidents": ("hub/test_hub_sim_event.py",),
    "controller.hub.sim_operator": ("hub/test_hub_simulate_faults.py", "hub/test_hub_sim_event.py"),
    "controller.hub.sim_summary": ("hub/test_hub_sim_event.py",
                                   "hub/test_hub_director_one_score.py"),
    "controller.hub.sim_worker": ("hub/test_hub_simulate_faults.py",),
    # hub web: what the routes share and the routes themselves, met through the app
    "controller.hub.web.arbiter_access": ("hub/test_hub_web_app.py",
                                          "web/test_web_auth_sessions.py"),
    "controller.hub.web.context": ("hub/test_hub_web_app.py",),
    "controller.hub.web.live": ("hub/test_hub_admission.py", "hub/test_hub_broadcast_steps.py"),
    "controller.hub.web.store_reads": ("hub/test_hub_admission.py",
                                       "hub/test_hub_broadcast_steps.py"),
    "controller.hub.web.responses": ("hub/test_hub_web_app.py",),
    "controller.hub.web.spectator_routes": ("hub/test_hub_broadcast_delay.py",
                                            "hub/test_hub_web_app.py"),
    "controller.hub.web.spectator_view": ("hub/test_hub_pages.py",),
    "controller.hub.web.tournament_routes": ("hub/test_hub_director_one_writer.py",),
    # tournament store: drawing up a rules' simulated event, met where its rules are checked
    "controller.tournament_store.simulate": ("tournament/test_tournament_pairing_rule_text.py",),
    # tournament: the event's parts, met through ``Tournament``, the one object a director drives
    "controller.tournament.flow": ("tournament/test_tournament_pairing_properties.py",
                                   "tournament/test_tournament_pairing_rule_text.py"),
    "controller.tournament.game": ("tournament/test_tournament_event.py",
                                   "tournament/test_tournament_verdict.py"),
    "controller.tournament.knockout": ("tournament/test_tournament_event.py",),
    "controller.tournament.latecomers": ("tournament/test_scorecard.py",
                                         "tournament/test_tournament_event_director_machine.py"),
    "controller.tournament.leagues": ("tournament/test_tournament_lottery.py",),
    "controller.tournament.model": ("tournament/test_tournament_event.py",
                                    "tournament/test_tournament_event_board_sizes.py"),
    "controller.tournament.state": ("tournament/test_tournament_event.py",
                                    "tournament/test_tournament_pairing_properties.py"),
    "controller.tournament.toss": ("tournament/test_tournament_event.py",),
    # vision: shared definitions and edges, met wherever a picture is found or read
    "controller.vision.annotate": ("vision/reading/test_vision_reading_square_model.py",),
    "controller.vision.calibration_file": ("vision/watching/test_vision_watching_loop.py",
                                           "vision/watching/test_vision_watching_turn_in_play.py"),
    "controller.vision.colour": ("vision/test_vision_setup.py",
                                 "vision/watching/test_vision_watching_turn_in_play.py"),
    "controller.vision.cv": ("vision/test_vision_pipeline_synthetic.py",
                             "vision/finding/test_vision_finding_contours.py"),
    "controller.vision.geometry": ("vision/test_vision_setup.py",
                                   "vision/finding/test_vision_finding_finder.py"),
    # the words of ``--a1``, read through the geometry that places a1
    "controller.vision.places": ("vision/calibrating/test_vision_calibrating_fit.py",
                                 "vision/reading/test_vision_reading_square_model.py"),
    "controller.vision.sampling": ("vision/finding/test_vision_finding_grid_fit.py",
                                   "vision/reading/test_vision_reading_square_model.py"),
    # calibrating: the steps of a fit, met through the calibrations they serve
    "controller.vision.calibrating.edges": ("vision/calibrating/test_vision_calibrating_fit.py",),
    "controller.vision.calibrating.judge": ("vision/calibrating/test_vision_calibrating_search.py",
                                            "vision/calibrating/test_vision_calibrating_discs.py"),
    # finding: the finder's cues, each met through the board it finds
    "controller.vision.finding.disc_lattice": ("vision/finding/test_vision_finding_grid_fit.py",),
    "controller.vision.finding.edges": ("vision/finding/test_vision_finding_finder.py",
                                        "vision/finding/test_vision_finding_grid_fit.py"),
    "controller.vision.finding.grid_check": ("vision/finding/test_vision_finding_grid_fit.py",
                                             "vision/calibrating/test_vision_calibrating_search.py"),
    "controller.vision.finding.lattice": ("vision/finding/test_vision_finding_finder.py",),
    # reading: the reader and its looks, met through the readings of rendered boards
    "controller.vision.reading.board_reading": (
        "vision/reading/test_vision_reading_squarestats_greys.py",
        "vision/reading/test_vision_reading_square_model.py"),
    "controller.vision.reading.reader": ("vision/test_vision_pipeline_synthetic.py",
                                         "vision/watching/test_vision_watching_turn_in_play.py"),
    "controller.vision.reading.scoring": ("vision/test_vision_pipeline_endtoend.py",
                                          "vision/test_vision_pipeline_synthetic.py"),
    "controller.vision.reading.second_opinion": (
        "vision/reading/test_vision_reading_square_model.py",),
    "controller.vision.reading.shifted": ("vision/test_vision_pipeline_synthetic.py",
                                          "vision/reading/test_vision_reading_uncentred_conflict.py"),
    # watching: the watcher and its guard, met through the watch loop that drives them
    "controller.vision.watching.grid_guard": ("vision/watching/test_vision_watching_loop.py",),
    "controller.vision.watching.watcher": ("vision/watching/test_vision_watching_loop.py",
                                           "vision/watching/test_vision_watching_turn_in_play.py"),
}


def modules(root: Path, package: str) -> list[str]:
    """The modules of ``package`` (its own files, not its sub-packages'), by name."""
    folder = root.joinpath(*package.split("."))
    return sorted(p.stem for p in folder.glob("*.py") if p.stem != "__init__")


def named_tests(folder: Path, stem: str) -> list[str]:
    """The test files in ``folder`` found from ``stem``: ``stem.py`` or ``stem_*.py``."""
    return sorted(p.name for p in folder.glob("test_*.py")
                  if p.stem == stem or p.stem.startswith(stem + "_"))


def _test_stem(package: str) -> str:
    return "test_" + package.removeprefix("controller.").replace(".", "_")


def _own_tests(root: Path) -> dict[str, list[str]]:
    """Every module the rule covers -> the test files named after it."""
    own = {}
    for package, folder in MIRRORED_PACKAGES.items():
        for module in modules(root, package):
            own[f"{package}.{module}"] = named_tests(
                root / "tests" / folder, f"{_test_stem(package)}_{module}")
    for module in modules(root, "controller"):
        home = TOP_LEVEL_HOMES.get(module)
        own[f"controller.{module}"] = (
            [] if home is None else named_tests(root / "tests" / home, f"test_{module}"))
    return own


def unmirrored_modules(root: Path) -> tuple[list[str], list[str]]:
    """The modules with neither a test file of their own nor a ``TESTED_THROUGH`` line,
    and those with both (a line left behind when the module got its own file)."""
    own = _own_tests(root)
    missing = [name for name, files in own.items() if not files and name not in TESTED_THROUGH]
    stale = [name for name, files in own.items() if files and name in TESTED_THROUGH]
    return missing, stale


def unnamed_test_files(root: Path) -> list[str]:
    """Test files of a mirrored folder whose name leads to no module of that folder."""
    stems: dict[str, list[str]] = {}
    for package, folder in MIRRORED_PACKAGES.items():
        stems.setdefault(folder, []).extend(
            f"{_test_stem(package)}_{module}" for module in modules(root, package))
    for module, folder in TOP_LEVEL_HOMES.items():
        stems.setdefault(folder, []).append(f"test_{module}")
    unnamed = []
    for folder in sorted({*MIRRORED_PACKAGES.values(), *TOP_LEVEL_FOLDERS}):
        for path in sorted((root / "tests" / folder).glob("test_*.py")):
            name = f"{folder}/{path.name}"
            if name not in PACKAGE_WIDE and not any(
                    path.stem == s or path.stem.startswith(s + "_") for s in stems[folder]):
                unnamed.append(name)
    return unnamed


def map_mistakes(root: Path) -> list[str]:
    """What this file names that does not exist: a module, a test file, an empty line."""
    known = set(_own_tests(root))
    mistakes = [f"no module {name}" for name in TESTED_THROUGH if name not in known]
    mistakes += [f"no module controller/{name}.py" for name in TOP_LEVEL_HOMES
                 if not (root / "controller" / f"{name}.py").is_file()]
    files = [*PACKAGE_WIDE, *(f for fs in TESTED_THROUGH.values() for f in fs)]
    mistakes += [f"no file tests/{f}" for f in files if not (root / "tests" / f).is_file()]
    mistakes += [f"{name}: no test file named" for name, fs in TESTED_THROUGH.items() if not fs]
    return mistakes
