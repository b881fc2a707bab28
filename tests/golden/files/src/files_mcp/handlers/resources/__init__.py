"""Your resource handlers: one module per resource, created once by failwell and never overwritten."""
