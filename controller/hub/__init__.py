"""The tournament hall: every table on one MQTT broker, one hub, one dashboard.

``protocol`` defines the topics and payloads both sides use; ``publisher`` is the
table's side (its journal is the outbox), ``ingest`` and ``store`` the hub's,
``broker`` starts a private Mosquitto for tests and ``kaeshi hub simulate``.
"""
