"""meshport for Python: read, write and convert 3D game model formats (docs/python.md)."""
from ._meshport import *  # noqa: F401,F403
from ._meshport import __version__  # noqa: F401
