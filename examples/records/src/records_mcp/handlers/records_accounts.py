"""`records_accounts`: List the credit accounts and their balances."""

from .._generated.tools.records_accounts import Context, Input, Output, OutputAccountsItem
from ..store import RECORDS


async def handle(params: Input, ctx: Context) -> Output:
    """Every account with its balance."""
    accounts = [OutputAccountsItem(account=name, balance=balance) for name, balance in sorted(RECORDS.balances.items())]
    return Output(accounts=accounts)
