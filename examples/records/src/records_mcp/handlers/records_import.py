"""`records_import`: Import contacts, each row on its own (a `partial` batch)."""

from .._generated.tools.records_import import Context, DuplicateEmail, Item, Output
from ..store import RECORDS


async def handle(item: Item, ctx: Context) -> Output:
    """Add one contact; a known email is the spec's `duplicate_email`, and the other rows go on."""
    if item.email in RECORDS.contacts:
        raise DuplicateEmail()
    contact_id = f"c-{len(RECORDS.contacts) + 1}"
    RECORDS.contacts[item.email] = contact_id
    return Output(contact_id=contact_id, email=item.email)
