"""`python -m files_mcp` serves over stdio; add `--http` for streamable HTTP."""

from ._generated.server import main

if __name__ == "__main__":
    main()
