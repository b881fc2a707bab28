"""A knowledge graph of entities and what is known of them."""
