"""Stage 4, the auditor: `failwell audit` connects to any MCP server as a client (stdio or streamable HTTP),
lists what it serves, probes it without side effects (`probes`), judges every answer by failwell's rules
(`judge`, reusing the spec stage's wording lint), and reports (`report`: terminal, JSON, one-file HTML) or drafts a
failwell.yaml from what was listed (`draft`). `run` ties them together. Imports `spec/` and `client/` only."""
