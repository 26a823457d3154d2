"""Kernel-side code: shipped into the user's kernel and run there.

Rules for everything in this package: standard library only at import time, runs on
Python 3.9+, never imports crane_server, never imports a library the user has not imported
(look in sys.modules), never assigns into the user namespace, never calls user code.
In the kernel these modules live under the private `_crane_probe` sys.modules prefix.
"""
