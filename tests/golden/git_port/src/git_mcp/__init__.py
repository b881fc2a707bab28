"""Read and change a git repository."""
