"""Stage 3, the client side: how a client starts the generated server (`launch`), its entry in each client's
file (`install`, `clients`), and the server spoken to over stdio (`session`) or in the Inspector
(`inspector`). Imports the earlier stages only."""
