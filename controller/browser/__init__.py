"""A phone as the table's camera and a tablet as its clock, over the table's web server.

The pure parts (the wire's one reader, the clock synchronisation, the ordering of
inputs by their own time) are here beside the source that feeds the service; the
pages and their routes are in :mod:`controller.web.phone_routes`.
"""
