"""Files in a folder, read and written."""
