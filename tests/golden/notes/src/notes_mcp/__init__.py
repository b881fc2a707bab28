"""Keeps short notes; a client may subscribe to a note and hear when it changes."""
