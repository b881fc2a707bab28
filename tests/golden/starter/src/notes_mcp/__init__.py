"""Keeps short notes for an assistant."""
