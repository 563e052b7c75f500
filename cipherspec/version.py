"""The package version, apart from cipherspec/__init__.py (which also imports the API) so that what
stamps it into generated files imports nothing else:  from cipherspec.version import __version__"""

__version__ = "0.1.0"
