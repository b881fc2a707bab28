"""`records_transfer`: Move credits between accounts, all or none (an `all_or_nothing` batch).

Every transfer is checked against a copy of the balances first; only when all of them fit are the
balances replaced, so a failure leaves nothing written.
"""

from .._generated.tools.records_transfer import Context, InsufficientCredits, Item, Output, UnknownAccount
from ..store import RECORDS


async def handle(items: list[Item], ctx: Context) -> list[Output]:
    """Apply every transfer, or raise for the first that cannot be applied and change nothing."""
    balances = dict(RECORDS.balances)
    for index, transfer in enumerate(items):
        for account in (transfer.from_account, transfer.to_account):
            if account not in balances:
                raise UnknownAccount(account=account).at(index)
        if balances[transfer.from_account] < transfer.credits:
            raise InsufficientCredits(account=transfer.from_account, balance=balances[transfer.from_account]).at(index)
        balances[transfer.from_account] -= transfer.credits
        balances[transfer.to_account] += transfer.credits
    RECORDS.balances = balances
    return [Output(from_account=t.from_account, to_account=t.to_account, credits=t.credits) for t in items]
