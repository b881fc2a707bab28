"""Your dependency handlers: one module per dependency, created once by failwell and never overwritten."""
