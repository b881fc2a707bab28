"""The notes, in this process."""

NOTES: dict[str, str] = {}
