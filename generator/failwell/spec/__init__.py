"""Stage 1, the spec's front end: read a file with its lines kept and its size bounded (`load`, `bounds`,
`quickyaml`), check it against spec.schema.json (`validate`), lint what a schema cannot say (`lint`, `fields`,
`patterns`, `uri`, `naming`) and the wording of every message (`wording`, `messages`), each problem with a
stable code (`codes`). Imports nothing from the later stages."""
