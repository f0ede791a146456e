"""A table's side of the hall link: its journal published to the hub, the hub's orders
run as the table's own actions. Owned by the service; never imports the hub.
"""
