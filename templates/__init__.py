"""The Jinja templates of the web pages and the mails, shipped as package data.

A package of its own so that an installed wheel carries them: the app loads them with
Jinja's PackageLoader (through importlib.resources), never from a path beside the source.
"""
