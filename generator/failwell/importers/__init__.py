"""Stage importers: front ends that write a spec from another description of an API (`failwell import ...`).

An importer reads its source, maps it onto the spec language and checks the result with `failwell/spec/`; it
never imports `failwell/render/` or `failwell/client/`: the CLI hands what it produced to the public API
(`new`, `generate`), as a person would."""
