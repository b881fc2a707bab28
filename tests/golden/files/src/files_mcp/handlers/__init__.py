"""One module per tool, each with an `async def handle(params, ctx)`: the business logic, yours to edit."""
